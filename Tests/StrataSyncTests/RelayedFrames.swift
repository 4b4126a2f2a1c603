import StrataSync

/// `frames` passed on one by one, each once `hold` has returned for it, ending or failing as they
/// do; ending the relayed stream stops the reading. For the transports that hold a pull stream's
/// frames back.
func relayed(
    _ frames: AsyncThrowingStream<SyncPullFrame, any Error>, hold: @escaping @Sendable (SyncPullFrame) async throws -> Void
) -> AsyncThrowingStream<SyncPullFrame, any Error> {
    AsyncThrowingStream { continuation in
        let task = Task {
            do {
                for try await frame in frames {
                    try await hold(frame)
                    continuation.yield(frame)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
    }
}
