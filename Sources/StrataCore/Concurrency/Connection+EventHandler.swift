// Setting a connection's event handler: its reporter registers as the connection's observer, and
// statements are heard through the trace callback Hooks installs for observers that want them.

import StrataKernel
import StrataSchema
extension Connection {
    /// Reports this connection's statements, failures and checkpoints to `handler` (nil stops).
    /// Call it where the connection is used (on its queue); a ``Database`` sets it on all its
    /// connections with ``Database/setEventHandler(_:)``.
    ///
    /// Statements are heard through SQLite's trace callback, beside what ``traceEvent(mask:closure:)``
    /// registers; Strata's own bookkeeping statements are not reported, as there.
    public func setEventHandler(_ handler: (any DatabaseEventHandler)?) {
        let reporter = state(in: DatabaseEventReporter.slot)
        reporter.handler = handler
        if handler == nil { removeObserver(reporter) } else { addObserver(reporter) }
        installTrace()
    }
}
