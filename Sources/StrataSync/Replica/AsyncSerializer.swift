// One async body at a time, in order of arrival: pushes and syncs of one replica.
import Foundation
import Strata

/// Runs async bodies one at a time, in order of arrival.
final class AsyncSerializer: Sendable {
    private let tail = Locked<Task<Void, Never>?>(nil)

    func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        // Reading the tail and storing the new one under one lock: two callers arriving together
        // must not both chain onto the same previous task and then run side by side.
        let task = tail.withLock { tail -> Task<T, any Error> in
            let previous = tail
            let task = Task { () async throws -> T in
                await previous?.value
                return try await body()
            }
            tail = Task { _ = try? await task.value }
            return task
        }
        return try await task.value
    }
}
