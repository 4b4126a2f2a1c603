import Foundation

/// Holds a Swift closure handed to SQLite as a context pointer.
///
/// Functions and collations pass a retained box with a destroy callback, so SQLite releases it
/// exactly when the registration is replaced or removed. Hooks have no destroy callback: the
/// connection keeps their box in `callbackBoxes` until the hook is replaced or unregistered.
package final class CallbackBox<Value> {
    let value: Value
    package init(_ value: Value) { self.value = value }

    /// A +1 pointer for APIs whose destroy callback calls ``release(_:)``.
    package func retainedPointer() -> UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }

    /// A +0 pointer for hooks; the connection's `callbackBoxes` keeps the box alive.
    func unretainedPointer() -> UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    package static func from(_ pointer: UnsafeMutableRawPointer) -> Value {
        Unmanaged<CallbackBox<Value>>.fromOpaque(pointer).takeUnretainedValue().value
    }

    package static func release(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        Unmanaged<CallbackBox<Value>>.fromOpaque(pointer).release()
    }
}
