// The sync loop an app starts and stops: it pushes as soon as a write through the replica
// commits, and otherwise pulls (a long poll when the transport waits on the hub, as
// `HTTPSyncTransport.pullWait` does), retrying failures with backoff.
import Foundation
import Strata

// Changesets compile where Strata links its SQLite shim (not yet on Apple platforms, whose SDK
// header declares no session functions though the library exports them).
#if !canImport(Darwin)

/// A running sync of one replica, from ``SyncReplica/startSyncing(interval:maximumBackoff:)``
/// until ``stop()``. Everything it needs is in the replica's database (outbox, cursor), so a
/// loop started again after the process restarts resumes where the last one was.
public final class SyncLoop: Sendable {
    private let task: Locked<Task<Void, Never>?>
    private let wakeup: SyncWakeup

    init(replica: SyncReplica, wakeup: SyncWakeup, interval: Duration, maximumBackoff: Duration) {
        self.wakeup = wakeup
        task = Locked(nil)
        let loop = Task {
            var backoff: Duration = .milliseconds(100)
            while !Task.isCancelled {
                // The pull may wait on the hub; a local write cuts that wait short so the write
                // goes out at once (a cancelled pull leaves the replica as it was, a cancelled
                // push is applied once when sent again).
                wakeup.reset()
                let round = Task { try await replica.sync() }
                let outcome = await withTaskGroup(of: Bool?.self) { group -> Bool? in
                    group.addTask {
                        do { try await round.value; return true } catch is CancellationError { return nil } catch { return false }
                    }
                    group.addTask {
                        await wakeup.wait()
                        return nil
                    }
                    let first = await group.next() ?? nil
                    if first == nil { round.cancel() }
                    group.cancelAll()   // ends the waiting child if the round finished first
                    _ = await round.result
                    return first
                }
                if Task.isCancelled { break }
                switch outcome {
                case true?:
                    backoff = .milliseconds(100)
                    // Caught up: wait for a local write or the next poll.
                    await wakeup.wait(timeout: interval)
                case false?:
                    await wakeup.wait(timeout: backoff)
                    backoff = min(backoff * 2, maximumBackoff)
                case nil:
                    continue   // a local write: push it now
                }
            }
        }
        task.withLock { $0 = loop }
    }

    /// Stops the loop and waits for the round in progress to end (cancelled: the replica keeps
    /// its outbox and cursor for the next start).
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
                    if Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            resume(id)
        }
        timer?.cancel()
    }

    private func resume(_ id: UUID) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
}
#endif
