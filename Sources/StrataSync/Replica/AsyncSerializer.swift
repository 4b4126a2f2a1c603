// One async body at a time, in order of arrival: pushes and syncs of one replica.
import Foundation
import Strata

/// Runs async bodies one at a time, in order of arrival; a caller's cancellation reaches its body.
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
        // The body runs in a task of its own (to keep the order); the caller's cancellation is
        // passed on to it, so a cancelled caller's body can stop (a stopping SyncLoop's push).
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
