import StrataKernel
import StrataSchema
import Foundation

/// Polls `PRAGMA data_version` on one connection of its own, for every observation of a database
/// that asked to see other connections' and other processes' commits.
///
/// `data_version` changes when a commit made by any other connection (this process's writer
/// included) becomes visible, so one cheap pragma per interval tells whether to fetch again.
// @unchecked Sendable: `connection`, `lastVersion` and `timer` are only touched on `queue`; the
// interval is behind a lock.
final class ExternalChangePoller: @unchecked Sendable {
    private let queue = DispatchQueue(label: "strata.observation.external-changes")
    private let open: @Sendable () throws -> Connection
    private let onChange: @Sendable () -> Void
    private let interval: Locked<Duration>
    private var connection: Connection?
    private var lastVersion: Int64?
    private var timer: DispatchSourceTimer?

    init(interval: Duration, open: @escaping @Sendable () throws -> Connection, onChange: @escaping @Sendable () -> Void) {
        self.interval = Locked(interval)
        self.open = open
        self.onChange = onChange
    }

    func start() {
        queue.async { [self] in
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.setEventHandler { [weak self] in self?.poll() }
            self.timer = timer
            schedule()
            timer.resume()
            poll()
        }
    }

    /// Polls at least as often as `interval` from now on.
    func pollAtLeastEvery(_ newInterval: Duration) {
        let shortened = interval.withLock { current -> Bool in
            guard newInterval < current else { return false }
            current = newInterval
            return true
        }
        if shortened { queue.async { [self] in schedule() } }
    }

    func stop() {
        queue.async { [self] in
            timer?.cancel()
            timer = nil
            connection = nil
        }
    }

    private func schedule() {
        let nanoseconds = Self.nanoseconds(of: interval.current)
        timer?.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds), leeway: .milliseconds(1))
    }

    /// `interval` in nanoseconds for the timer: at least 1 ms, and at most `Int.max` for an
    /// interval too long to count in nanoseconds (over about 292 years), which would otherwise trap.
    static func nanoseconds(of interval: Duration) -> Int {
        let components = interval.components
        let (whole, overflow) = components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return components.seconds < 0 ? 1_000_000 : Int(Int64.max) }
        let (total, sumOverflow) = whole.addingReportingOverflow(components.attoseconds / 1_000_000_000)
        return Int(max(1_000_000, sumOverflow ? (whole < 0 ? 0 : Int64.max) : total))
    }

    private func poll() {
        guard timer != nil else { return }
        do {
            let connection = try self.connection ?? open()
            self.connection = connection
            let version: Int64? = try connection.query("PRAGMA data_version")
            defer { lastVersion = version }
            // The first reading counts as a change too: a commit between an observer's first fetch
            // and this baseline would otherwise go unseen.
            if lastVersion != version { onChange() }
        } catch {
            // The file may not exist yet or be locked for a moment: try again next time, afresh.
            // `data_version` counts per connection, so the next connection's first reading is a
            // new baseline, which counts as a change: a commit made while this one was refused
            // (another connection's EXCLUSIVE lock) would otherwise go unseen.
            connection = nil
            lastVersion = nil
        }
    }
}
