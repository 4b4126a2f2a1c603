// Every `sqlite3_open_v2` passes this gate. SQLite runs its process-wide automatic extensions
// inside each open, and a loadable extension may register one that fails connections it does not
// serve (litestream-vfs 0.5.17 does); whoever changes that list takes the gate exclusively, so no
// Strata connection opens while the list is briefly wrong.
import Foundation

/// A process-wide reader-writer gate around opening connections.
package enum OpenGate {
    /// A `pthread_rwlock_t` at a fixed address.
    private final class ReadWriteLock: @unchecked Sendable {
        // @unchecked Sendable: the lock lives at one heap address for the process's lifetime and
        // pthread read-write locks are made to be shared between threads.
        let pointer: UnsafeMutablePointer<pthread_rwlock_t>
        init() {
            pointer = .allocate(capacity: 1)
            pointer.initialize(to: pthread_rwlock_t())
            pthread_rwlock_init(pointer, nil)
        }
    }

    private static let lock = ReadWriteLock()

    /// Runs `open` beside any other opens, never beside a change of the automatic extensions.
    package static func opening<T>(_ open: () throws -> T) rethrows -> T {
        pthread_rwlock_rdlock(lock.pointer)
        defer { pthread_rwlock_unlock(lock.pointer) }
        return try open()
    }

    /// Runs `change` while no connection opens.
    package static func changingAutomaticExtensions<T>(_ change: () throws -> T) rethrows -> T {
        pthread_rwlock_wrlock(lock.pointer)
        defer { pthread_rwlock_unlock(lock.pointer) }
        return try change()
    }
}
