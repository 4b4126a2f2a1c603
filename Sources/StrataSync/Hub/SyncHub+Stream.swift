// The hub's side of a pull stream: one pull after another for a replica that holds a stream,
// each sent as a frame, with the wait between them woken by the commit that moves the space.
import Foundation
import Strata

extension SyncHub {
    /// Follows `request` as a stream: sends the answer to a pull after its cursor at once (the
    /// frame that opens the stream), then another frame each time the space's version moves past
    /// the cursor the last frame reached, until `deadline`, `send` returns false, or the task is
    /// cancelled, or `ending` returns true (checked each time the wait ends: ``wakeEverySpace()``
    /// ends a wait early). `send(nil)` is a heartbeat, after `heartbeat` without a frame; `first`
    /// is the opening answer when the caller already has it.
    ///
    /// Each frame is exactly the answer ``pull(_:identity:)`` gives for its cursor, under the
    /// rules in force when it is read, so a stream sends no row a pull would not. A frame that
    /// asks the replica to start over (a snapshot, a rollback) is the stream's last: the replica
    /// catches up its own way and opens another.
    package func followPulls(
        _ request: SyncPullRequest, caller: SyncCaller, first: SyncPullResponse? = nil, heartbeat: Duration,
        until deadline: ContinuousClock.Instant, ending: () -> Bool = { false }, send: (SyncPullFrame?) async throws -> Bool
    ) async throws {
        var pull = request
        var opened = false
        var opening = first
        while !Task.isCancelled, !ending(), ContinuousClock.now < deadline {
            let response: SyncPullResponse
            if let answered = opening {
                response = answered
                opening = nil
            } else {
                response = try await pullTogether(pull, caller: caller)
            }
            if !opened || !response.entries.isEmpty || response.snapshotNeeded || response.hubRolledBack {
                opened = true
                guard try await send(SyncPullFrame(after: pull.after, response: response)) else { return }
                if response.snapshotNeeded || response.hubRolledBack { return }
                // The replica applies frames in order (and closes the stream at one it drops), so
                // the view it holds after this frame is the frame's.
                pull.appliedView = response.view
                if let last = response.entries.last {
                    pull.after = last.version
                    pull.afterChain = last.chain
                    // Asked once: the pushes acknowledged before the stream opened are in its
                    // first frames; the counts of a view only in the first.
                    pull.lastAcknowledged = nil
                    pull.countsViewRows = false
                    // A page that did not reach the version it was read at has more to send
                    // now; one that did waits for the next commit (no second read per frame).
                    if last.version < response.hubVersion { continue }
                }
            }
            // Past the version the answer was read at: a commit after that read wakes the wait,
            // and versions that moved nothing of this replica's do not spin it.
            let seen = max(pull.after, response.hubVersion)
            let waitEnd = min(deadline, ContinuousClock.now + heartbeat)
            try await waitForVersion(ofSpace: pull.space, after: seen, timeout: waitEnd - ContinuousClock.now)
            if ContinuousClock.now >= waitEnd, try await versionTogether(ofSpace: pull.space) <= seen {
                guard try await send(nil) else { return }
            }
        }
    }
}
