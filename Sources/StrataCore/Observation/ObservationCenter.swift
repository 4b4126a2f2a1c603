// Observation: query results that follow every change. The writer's connection reports what each
// commit wrote (kernel: WriteTracker); the center marks the observers whose region it touched; each
// observer fetches again on a reader when its consumer asks for the next value. Waiting observers
// hold no connection, so any number of them share a bounded pool.
import StrataKernel
import StrataSchema
import Foundation

/// The observers of one writer connection and the tracking of its commits.
final class ObservationCenter: Sendable {
    private struct State {
        /// An array: each commit takes it by retaining one buffer (copying a dictionary's values
        /// allocated and retained every observer, on the writer's thread, per commit).
        var observers: [Observer] = []
        var poller: ExternalChangePoller?
        /// Wakes the writer's monitor while anyone observes.
        var monitor: AccessMonitor.AwakeSwitch?
    }

    private let state = Locked(State())

    /// Permits to fetch, one per core but one: with every core fetching, a burst of observers
    /// would take the writer's core and slow the commits they follow. Observers waiting for a
    /// lane meanwhile coalesce more commits into their next fetch.
    let fetchLanes = PoolCore<FetchLane>(maximum: max(1, ProcessInfo.processInfo.activeProcessorCount - 1))

    package init() {}

    /// How long an observer waits, after a fetch during which the writer committed again, before
    /// fetching again, so that one fetch covers the next few commits of the burst: half a
    /// millisecond, and a quarter more per observer, up to 50 ms, which keeps the fetches of all
    /// observers together to about four per millisecond however many there are. A lone commit is
    /// fetched at once.
    var burstCoalescingDelay: Duration {
        let observers = activeObservationCount
        return .microseconds(min(50_000, max(500, 250 * observers)))
    }

    /// How many observations are active (registered and not yet ended).
    package var activeObservationCount: Int { state.withLock { $0.observers.count } }

    /// Registers an observer whose next fetch is due at once.
    func register(externalChanges: ExternalChanges?) -> Observer {
        let (observer, pollerToStart): (Observer, ExternalChangePoller?) = state.withLock { state in
            let observer = Observer(seesExternalChanges: externalChanges != nil)
            state.observers.append(observer)
            // Woken before the first fetch starts: every commit that fetch cannot see is reported.
            if state.observers.count == 1 { state.monitor?.wake() }
            guard let externalChanges else { return (observer, nil) }
            if let poller = state.poller {
                poller.pollAtLeastEvery(externalChanges.interval)
                return (observer, nil)
            }
            let poller = ExternalChangePoller(interval: externalChanges.interval, open: externalChanges.open) { [weak self] in
                self?.externalChangeSeen()
            }
            state.poller = poller
            return (observer, poller)
        }
        pollerToStart?.start()
        return observer
    }

    /// Forgets an observer; the shared poller stops with the last observer that needed it.
    func unregister(_ observer: Observer) {
        let poller: ExternalChangePoller? = state.withLock { state in
            guard let index = state.observers.firstIndex(where: { $0 === observer }) else { return nil }
            state.observers.remove(at: index)
            if state.observers.isEmpty { state.monitor?.sleep() }
            guard state.observers.contains(where: { $0.seesExternalChanges }) == false else { return nil }
            defer { state.poller = nil }
            return state.poller
        }
        poller?.stop()
    }

    /// Makes `connection` (the writer) report its commits here while anyone observes. Call it
    /// before the connection is shared.
    func trackCommits(of connection: Connection) {
        connection.trackWrites { [weak self] written in self?.committed(written) }
        let monitor = connection.monitor.awakeSwitch
        state.withLock { $0.monitor = monitor }
    }

    /// Called on the writer's thread after each commit.
    func committed(_ written: DatabaseAccess) {
        let observers = state.withLock { $0.observers }
        for observer in observers { observer.changed(written) }
    }

    private func externalChangeSeen() {
        let observers = state.withLock { $0.observers }
        for observer in observers where observer.seesExternalChanges { observer.changed(.everything) }
    }
}

/// A permit to run one observation fetch (see ``ObservationCenter/fetchLanes``).
final class FetchLane: Sendable {}

/// Where and how often an observation polls for other connections' commits.
struct ExternalChanges: Sendable {
    let interval: Duration
    /// Opens the connection the poller reads `PRAGMA data_version` on.
    let open: @Sendable () throws -> Connection
}

/// One observation's state: whether a fetch is due, and what its last fetch read.
final class Observer: Sendable {
    private struct State {
        /// A fetch is due (the first one is).
        var isDue = true
        /// What the last fetch read; nil before the first fetch finished.
        var region: DatabaseAccess?
        var isFetching = false
        /// Commits seen while a fetch ran, checked against the region that fetch learned.
        var writtenDuringFetch = DatabaseAccess()
        /// Unsafe rather than checked: every commit visits every observer's state, and a checked
        /// continuation is a reference, retained and released at each visit (about 250
        /// instructions). Resumed exactly once: whoever takes it under the lock resumes it.
        var waiter: UnsafeContinuation<Bool?, Never>?
        var isCancelled = false
    }

    let seesExternalChanges: Bool
    private let state = Locked(State())

    init(seesExternalChanges: Bool) {
        self.seesExternalChanges = seesExternalChanges
    }

    /// A commit wrote `written`: a fetch becomes due if it touched the region.
    func changed(_ written: DatabaseAccess) {
        let waiter: UnsafeContinuation<Bool?, Never>? = state.withLock { state in
            if state.isFetching {
                // The running fetch may have read before this commit; its new region decides.
                state.writtenDuringFetch.formUnion(written)
                return nil
            }
            if let region = state.region, !region.isAffected(by: written) { return nil }
            state.isDue = true
            // Moved out, not copied and cleared: this runs for every observer at every commit.
            return state.waiter.take()
        }
        waiter?.resume(returning: true)
    }

    /// Waits, holding no connection, until a fetch is due; false when cancelled.
    /// - Throws: ``ObservationError/concurrentIteration`` when another task already waits on this
    ///   observer (two copies of one iterator): there is one waiter slot, and taking it over would
    ///   leave the first task suspended for ever.
    func waitUntilDue() async throws -> Bool {
        let outcome: Bool? = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool?, Never>) in
                // nil is the answer only this call gives, when the slot is taken.
                let ready: Bool?? = state.withLock { state in
                    if state.isCancelled { return false }
                    if state.isDue { return true }
                    if state.waiter != nil { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            cancel()
        }
        guard let outcome else { throw ObservationError.concurrentIteration }
        return outcome
    }

    /// Ends the observation: a waiting consumer gets no more values.
    func cancel() {
        let waiter: UnsafeContinuation<Bool?, Never>? = state.withLock { state in
            state.isCancelled = true
            return state.waiter.take()
        }
        waiter?.resume(returning: false)
    }

    /// A fetch starts; commits from now on are weighed against its region.
    func fetchStarted() {
        state.withLock { state in
            state.isDue = false
            state.isFetching = true
            state.writtenDuringFetch = DatabaseAccess()
        }
    }

    /// A fetch ended having read `region`; another is due when a commit during it touched that.
    /// Returns whether one did: the writer is in a burst of commits.
    @discardableResult
    func fetchEnded(region: DatabaseAccess) -> Bool {
        state.withLock { state in
            state.isFetching = false
            state.region = region
            let burst = region.isAffected(by: state.writtenDuringFetch)
            if burst { state.isDue = true }
            state.writtenDuringFetch = DatabaseAccess()
            return burst
        }
    }
}

extension ConnectionQueue {
    /// The observations of this queue's connection, and the tracking of its commits they rely on
    /// (made with the queue, see `Composition.swift`).
    var observationCenter: ObservationCenter {
        // `makeCompanion` makes every queue's companion an ObservationCenter.
        unsafeDowncast(companion, to: ObservationCenter.self)
    }
}
