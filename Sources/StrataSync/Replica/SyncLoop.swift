// The sync loop an app starts and stops: it pushes as soon as a write through the replica
// commits, and otherwise pulls (a long poll when the transport waits on the hub, as
// `HTTPSyncTransport.pullWait` does), retrying failures with backoff.
import Foundation
import Strata

/// A running sync of one replica, from ``SyncReplica/startSyncing(interval:maximumBackoff:)``
/// until ``stop()``. Everything it needs is in the replica's database (outbox, cursor), so a
/// loop started again after the process restarts resumes where the last one was.
public final class SyncLoop: Sendable {
    private let task: Locked<Task<Void, Never>?>
    private let wakeup: SyncWakeup

    init(replica: SyncReplica, wakeup: SyncWakeup, interval: Duration, maximumBackoff: Duration) {
        self.wakeup = wakeup
        task = Locked(nil)
        // Two lanes, so a write never waits behind a pull that is waiting on the hub (a long poll):
        // the pusher sends the outbox whenever a write commits, the puller pulls one long poll
        // after another.
        // Both are safe beside each other and beside the app's own calls: pushes are serialized,
        // and a pull page is applied only if no other pull moved the cursor meanwhile.
        let loop = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    // Caught up: until the next write (or, now and then, to retry what a pull
                    // pushed back).
                    await SyncLoop.repeatUntilCancelled(interval: interval, maximumBackoff: maximumBackoff) {
                        try await replica.recordingStatus { try await replica.push() }
                    } pause: {
                        await wakeup.wait(timeout: $0)
                    }
                }
                group.addTask {
                    await SyncLoop.repeatUntilCancelled(interval: interval, maximumBackoff: maximumBackoff) {
                        // With a transport that streams, the pull catches up and the stream
                        // then brings each new version until it ends (the hub closed it, or the
                        // replica had to catch up its own way): then the lane pulls again.
                        try await replica.recordingStatus {
                            try await replica.pull()
                            try await replica.followPullStream()
                        }
                    } pause: {
                        try? await Task.sleep(for: $0)
                    }
                }
            }
        }
        task.withLock { $0 = loop }
    }

    /// Runs `attempt` until the task is cancelled, pausing (`pause`: each lane waits its own way)
    /// for `interval` after a success, and after a failure for a backoff that starts at 100 ms and
    /// doubles with each failure in a row up to `maximumBackoff`.
    private static func repeatUntilCancelled(
        interval: Duration,
        maximumBackoff: Duration,
        _ attempt: () async throws -> Void,
        pause: (Duration) async -> Void
    ) async {
        var backoff: Duration = .milliseconds(100)
        while !Task.isCancelled {
            do {
                try await attempt()
                backoff = .milliseconds(100)
                await pause(interval)
            } catch {
                await pause(backoff)
                backoff = min(backoff * 2, maximumBackoff)
            }
        }
    }

    /// Stops the loop and waits for the requests in progress to end (``HTTPSyncTransport``
    /// cancels them). The replica keeps its outbox and cursor for the next start.
    public func stop() async {
        guard let loop = task.withLock({ $0 }) else { return }
        loop.cancel()
        wakeup.signal()
        await loop.value
    }

    /// Whether the loop is still running.
    public var isRunning: Bool {
        guard let loop = task.current else { return false }
        return !loop.isCancelled
    }
}

extension SyncReplica {
    /// Starts syncing in the background until the returned loop is stopped: a write through the
    /// replica is pushed as soon as it commits; otherwise the loop pulls, every `interval` (with
    /// a transport that waits on the hub, such as `HTTPSyncTransport` with a `pullWait`, each
    /// pull is a long poll and `interval` only spaces them). Failures are kept in ``status`` and
    /// retried after a backoff doubling up to `maximumBackoff`.
    ///
    /// ```swift
    /// let loop = replica.startSyncing()
    /// // ... the app writes through replica.write { ... }
    /// await loop.stop()
    /// ```
    public func startSyncing(interval: Duration = .seconds(1), maximumBackoff: Duration = .seconds(30)) -> SyncLoop {
        SyncLoop(replica: self, wakeup: localWrites, interval: interval, maximumBackoff: maximumBackoff)
    }
}

/// Wakes a waiting sync loop: signalled by each write through the replica, waited for with or
/// without a timeout. A signal with no waiter is kept for the next wait.
final class SyncWakeup: Sendable {
    private struct State {
        var pending = false
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
        /// Waits whose timeout or cancellation came before they registered.
        var expired: Set<UUID> = []
    }
    private let state = Locked(State())

    func signal() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.waiters.isEmpty else { state.pending = true; return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    func reset() { state.withLock { $0.pending = false } }

    /// Returns at the next signal (or at once if one is pending), or when `timeout` passes, or when
    /// the calling task is cancelled.
    func wait(timeout: Duration? = nil) async {
        let id = UUID()
        let timer = timeout.map { timeout in
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                self?.resume(id)
            }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Checked under the lock that `onCancel` takes: a cancellation either finds the
                // waiter registered or is seen here, never neither.
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending { state.pending = false; return true }
                    if Task.isCancelled || state.expired.remove(id) != nil { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            resume(id)
        }
        timer?.cancel()
        state.withLock { _ = $0.expired.remove(id) }
    }

    /// Ends the wait `id`: at once if it is waiting, or as soon as it registers.
    private func resume(_ id: UUID) {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
            state.expired.insert(id)
            return nil
        }?.resume()
    }
}
