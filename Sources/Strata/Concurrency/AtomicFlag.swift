import Foundation
#if os(Linux)
import Synchronization
#endif

/// A Boolean that any thread may read and write: an `Atomic<Bool>` where the platform has one for
/// every supported OS version (Linux), a ``Locked`` value elsewhere. For flags read on hot paths,
/// where a lock per read measurably costs (the date fast path reads one per parsed date).
final class AtomicFlag: Sendable {
    #if os(Linux)
    private let storage: Atomic<Bool>
    init(_ value: Bool) { storage = Atomic(value) }
    var value: Bool {
        get { storage.load(ordering: .acquiring) }
        set { storage.store(newValue, ordering: .releasing) }
    }
    #else
    private let storage: Locked<Bool>
    init(_ value: Bool) { storage = Locked(value) }
    var value: Bool {
        get { storage.current }
        set { storage.withLock { $0 = newValue } }
    }
    #endif
}
