// Setting a connection's event handler: the kernel keeps the handler and reports to it, and
// statements are heard through the trace callback this folder installs.

extension Connection {
    /// Reports this connection's statements, failures and checkpoints to `handler` (nil stops).
    /// Call it where the connection is used (on its queue); a ``Database`` sets it on all its
    /// connections with ``Database/setEventHandler(_:)``.
    ///
    /// Statements are heard through SQLite's trace callback, beside what ``traceEvent(mask:closure:)``
    /// registers; Strata's own bookkeeping statements are not reported, as there.
    public func setEventHandler(_ handler: (any DatabaseEventHandler)?) {
        eventHandler = handler
        installTrace()
    }
}
