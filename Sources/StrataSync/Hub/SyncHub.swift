// The hub: the authoritative copy of each space, an append-only log of the changes it applied,
// and the record of which (replica, sequence) entries it has applied, so a retried push is applied
// once.
import Foundation
import Strata

/// The server side of sync: each space's tables, a log numbered by hub version, and the entries
/// applied so far, in a ``SyncHubStore`` (one SQLite file per space in a folder by default, or
/// PostgreSQL).
///
/// ```swift
/// let hub = try SyncHub(directory: hubFolder)
/// try hub.createSpace("team") { db in try db.execute("CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)") }
/// hub.setPolicy(.lastWriterWins, forTable: "todo")
/// ```
/// A push is applied in one transaction of the store, entry by entry, each a savepoint of it,
/// under the table's ``SyncPolicy`` with foreign keys enforced; an entry
/// the hub cannot apply is answered as a ``SyncRefusal`` (the replica keeps it) and the others
/// are applied.
public final class SyncHub: Sendable {
    /// The folder holding one `<space>.sqlite` per space, for the SQLite folder store; a hub
    /// over another store keeps nothing in a folder (this is then `URL(fileURLWithPath: "")`).
    public let directory: URL
    /// Where the spaces are kept.
    public let store: SyncHubStore
    let storage: any SyncHubStorage
    let policies = Locked<[String: SyncPolicy]>([:])
    /// Each space's rules as last compiled, with their version (checked on every request).
    let ruleCache = Locked<[String: CompiledRules]>([:])
    /// Whether pulls with a view read the log by its routes (``LogRoutes``); off, they read it
    /// whole, which a test compares them with.
    package let readsLogRoutes = Locked(true)
    /// What one push or pull may carry.
    public let limits: SyncLimits
    /// Long polls waiting for a space to pass a version, woken by the push that commits it.
    /// The long polls waiting, by space and by poll: a poll that times out or is cancelled
    /// leaves in constant time, whatever the number waiting (thousands per space).
    let waiters = Locked<[String: [UUID: (after: Int64, continuation: CheckedContinuation<Void, Never>)]]>([:])
    /// The pulls queued behind the one being answered on each space (``pullTogether(_:caller:)``).
    let pulls = Gathering<WaitingPull>(largest: SyncHub.largestPullBatch)
    /// The long polls' reads of a space's version, shared (``versionTogether(ofSpace:)``).
    let versionReads = Gathering<CheckedContinuation<Int64, any Error>>(largest: 100_000)

    /// Opens the hub in `directory`, creating the folder if needed. `configureConnection` runs on
    /// each space's connection when the hub opens it (to instrument it with StrataServer's
    /// `connection.instrument(_:)`, set a busy timeout, ...).
    public convenience init(
        directory: URL, limits: SyncLimits = SyncLimits(),
        configureConnection: @escaping @Sendable (Connection) throws -> Void = { _ in }
    ) throws {
        try self.init(store: .sqliteFolder(directory, configureConnection: configureConnection), limits: limits, directory: directory)
    }

    /// Opens the hub in the folder at `directory` (a path), creating it if needed.
    public convenience init(
        directory: String, limits: SyncLimits = SyncLimits(),
        configureConnection: @escaping @Sendable (Connection) throws -> Void = { _ in }
    ) throws {
        try self.init(directory: URL(fileURLWithPath: directory), limits: limits, configureConnection: configureConnection)
    }

    /// Opens a hub over `store` (``SyncHubStore/sqliteFolder(_:configureConnection:)``, or
    /// PostgreSQL with `StrataSyncPostgres`).
    public convenience init(store: SyncHubStore, limits: SyncLimits = SyncLimits()) {
        self.init(store: store, limits: limits, directory: URL(fileURLWithPath: ""))
    }

    init(store: SyncHubStore, limits: SyncLimits, directory: URL) {
        self.directory = directory
        self.store = store
        self.storage = store.storage
        self.limits = limits
        // A commit another hub process made on a shared store wakes the long polls here.
        storage.observeCommits { [weak self] space, version in
            guard let self else { return }
            if let space { self.wake(space, reached: version) } else { self.wakeEverySpace() }
        }
    }

    /// Returns once the space's version is past `version`, or after `timeout`, or when the task is
    /// cancelled: a long poll waits here, woken by the push that commits (no polling).
    public func waitForVersion(ofSpace name: String, after version: Int64, timeout: Duration) async throws {
        guard try await versionTogether(ofSpace: name) <= version, timeout > .zero else { return }
        let id = UUID()
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.wake(name, id: id)
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiters.withLock { $0[name, default: [:]][id] = (version, continuation) }
                // Cancelled before the handler was in place: its wake found nothing to wake.
                if Task.isCancelled { wake(name, id: id) }
                // A push that committed between the check above and the registration woke nobody:
                // looked for now, in a read shared with the polls registering at the same time.
                Task { [weak self] in
                    guard let self else { return }
                    if (try? await self.versionTogether(ofSpace: name)).map({ $0 > version }) ?? true { self.wake(name, id: id) }
                }
            }
        } onCancel: {
            wake(name, id: id)
        }
    }

    /// How many long polls wait on the space now.
    package func waitingPolls(inSpace name: String) -> Int { waiters.withLock { $0[name]?.count ?? 0 } }

    /// Wakes every long poll and stream, to look again (commits may have gone unseen) or to end
    /// (a server shutting down).
    package func wakeEverySpace() {
        let woken = waiters.withLock { waiters -> [CheckedContinuation<Void, Never>] in
            defer { waiters = [:] }
            return waiters.values.flatMap { $0.values.map(\.continuation) }
        }
        for continuation in woken { continuation.resume() }
    }

    /// Wakes the wait `id`, or every wait on `name` behind `version` when `id` is nil.
    func wake(_ name: String, id: UUID? = nil, reached version: Int64 = .max) {
        let woken = waiters.withLock { waiters -> [CheckedContinuation<Void, Never>] in
            guard var waiting = waiters[name] else { return [] }
            var woken: [CheckedContinuation<Void, Never>] = []
            if let id {
                if let waiter = waiting.removeValue(forKey: id) { woken.append(waiter.continuation) }
            } else {
                for (key, waiter) in waiting where waiter.after < version {
                    woken.append(waiter.continuation)
                    waiting.removeValue(forKey: key)
                }
            }
            waiters[name] = waiting.isEmpty ? nil : waiting
            return woken
        }
        for continuation in woken { continuation.resume() }
    }

    /// Creates the space `name`: `schema` makes its tables, which replicas must match.
    /// - Throws: ``SyncError/refused(_:)`` for a bad name or an existing space; what `schema`
    ///   throws (then no space is created).
    public func createSpace(_ name: String, schema: (Connection) throws -> Void) throws {
        try validateSpaceName(name)
        try storage.createSpace(name, schema: schema)
    }

    /// Creates the space `name` unless it exists with the tables `schema` makes (its current
    /// schema, or one it was migrated from); safe to run from every hub process that starts at
    /// once (`strata-sync-hub --create`): one creates the space, the others find it.
    /// - Returns: whether this call created the space.
    /// - Throws: ``SyncError/refused(_:)`` for a bad name or a space that exists with other
    ///   tables; ``SyncHubStoreUnavailable`` while the store cannot be reached (call again);
    ///   what `schema` throws.
    @discardableResult
    public func createSpaceIfNeeded(_ name: String, schema: (Connection) throws -> Void) throws -> Bool {
        try createSpaceIfNeeded(name, schema: schema, initialRules: nil)
    }

    /// ``createSpaceIfNeeded(_:schema:)``, the space made with `initialRules` set when this call
    /// creates it (in the store's one transaction).
    private func createSpaceIfNeeded(_ name: String, schema: (Connection) throws -> Void, initialRules: InitialSpaceRules?) throws -> Bool {
        try validateSpaceName(name)
        let created = try Connection(storageLocation: .inMemory, flags: OpenFlags.make())
        try created.transaction { try schema(created) }
        /// Whether the space is there (with these tables: with others it is refused).
        func exists() throws -> Bool {
            do {
                return try storage.withSpace(name) { storage in
                    if let difference = try storage.schemaDifference(from: created) {
                        throw SyncError.refused("the space \(name) exists with another schema than the one given: \(difference)")
                    }
                    return true
                }
            } catch SyncError.unknownSpace {
                return false
            }
        }
        if try exists() { return false }
        do {
            try storage.createSpace(name, schema: schema, rules: initialRules)
            return true
        } catch {
            // Another process created it since the look above: its space is the one to compare.
            if try exists() { return false }
            throw error
        }
    }

    /// Creates the space `name` with `rules`, unless it exists with the tables `schema` makes, and
    /// sets the rules: the rules are checked against those tables first, so rules that would be
    /// refused create nothing (`strata-sync-hub --create … --rules …`).
    /// - Returns: whether this call created the space.
    /// - Throws: ``SyncError/invalidRules(_:)`` before anything is created; what
    ///   ``createSpaceIfNeeded(_:schema:)`` and ``setRules(_:forSpace:)`` throw.
    @discardableResult
    public func createSpaceIfNeeded(_ name: String, rules: SyncRules?, schema: (Connection) throws -> Void) throws -> Bool {
        var initial: InitialSpaceRules?
        if let rules {
            let tables = try Connection(storageLocation: .inMemory, flags: OpenFlags.make())
            try tables.transaction { try schema(tables) }
            let compiled = try CompiledRules.compile(rules, version: 0, schema: tables)
            initial = InitialSpaceRules(json: try rules.jsonData(), probes: { compiled.probes($0) })
        }
        let created = try createSpaceIfNeeded(name, schema: schema, initialRules: initial)
        // A space that was there already gets the rules as any rules change (none when equal).
        if let rules, !created { try setRules(rules, forSpace: name) }
        return created
    }

    /// Settles conflicts on `table` by `policy` from now on (`.lastWriterWins` until set).
    public func setPolicy(_ policy: SyncPolicy, forTable table: String) {
        policies.withLock { $0[table.lowercased()] = policy }
    }

    /// The space's newest version (0 before any change).
    public func version(ofSpace name: String) throws -> Int64 {
        try space(name) { try $0.currentVersion() }
    }

    /// Runs `body` on the space's connection (to read the hub's state, or migrate it); for the
    /// SQLite store only (another store throws ``SyncError/refused(_:)``).
    public func withSpace<T>(_ name: String, _ body: (Connection) throws -> T) throws -> T {
        try validateSpaceName(name)
        return try storage.withConnection(name, body)
    }

    /// Removes log entries, keeping the newest `count`; returns how many went. A replica whose
    /// cursor is behind what was removed catches up from a ``snapshot(_:)``.
    @discardableResult
    public func trimLog(ofSpace name: String, keepingLast count: Int) throws -> Int {
        try trim(name) { storage in
            try storage.currentVersion() - Int64(max(0, count))
        }
    }

    /// Removes log entries the hub applied before `date` (to the second); returns how many went.
    @discardableResult
    public func trimLog(ofSpace name: String, olderThan date: Date) throws -> Int {
        try trim(name) { storage in
            let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
            return try storage.newestVersion(before: seconds)
        }
    }

    /// Removes the log through the version `horizon` returns, and remembers that it did.
    func trim(_ name: String, horizon: @escaping (any SyncSpaceStorage) throws -> Int64) throws -> Int {
        try space(name) { storage in
            try storage.write {
                try HubSpace(storage: storage).trim(through: try horizon(storage))
            }
        }
    }

    /// Runs `body` with the space's storage, one caller at a time.
    func space<T>(_ name: String, _ body: (any SyncSpaceStorage) throws -> T) throws -> T {
        try validateSpaceName(name)
        return try storage.withSpace(name, body)
    }
}
