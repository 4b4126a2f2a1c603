import Foundation
#if os(Linux)
import Synchronization
#endif

/// A Boolean that any thread may read and write: an `Atomic<Bool>` stored inline where the
/// platform has one for every supported OS version (Linux), a ``Locked`` value elsewhere. For
/// flags read on hot paths, where a lock per read measurably costs (the date fast path reads one
/// per parsed date).
package struct AtomicFlag: ~Copyable, Sendable {
    #if os(Linux)
    private let storage: Atomic<Bool>
    package init(_ value: Bool) { storage = Atomic(value) }
    @inline(__always) package func load() -> Bool { storage.load(ordering: .acquiring) }
    package func store(_ value: Bool) { storage.store(value, ordering: .releasing) }
    #else
    private let storage: Locked<Bool>
    init(_ value: Bool) { storage = Locked(value) }
    func load() -> Bool { storage.current }
    func store(_ value: Bool) { storage.withLock { $0 = value } }
    #endif
}
