import StrataKernel
import StrataSchema
import Foundation

/// What can be observed: a ``Database``, whose observations fetch on its readers, and a
/// ``ConnectionQueue``, whose observations fetch on its connection. The `observe` methods are
/// written once, here, over ``makeObservation(externalChanges:fetch:isDuplicate:)``.
public protocol DatabaseObservable: Sendable {
    /// Builds an observation of `fetch` that skips a value when `isDuplicate` says it equals the
    /// last one delivered; the `observe` methods call it.
    func makeObservation<Value: Sendable>(
        externalChanges: Duration?,
        fetch: @escaping @Sendable (Connection) throws -> Value,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?
    ) -> DatabaseObservation<Value>
}

extension DatabaseObservable {
    /// Observes `fetch`: its current value, then a fresh one after every commit that changes what
    /// it read.
    ///
    /// ```swift
    /// for try await count in database.observe({ try $0.query("SELECT count(*) FROM players") as Int? ?? 0 }) {
    ///     print("players:", count)
    /// }
    /// ```
    /// See ``DatabaseObservation`` for what counts as a change and what is delivered.
    ///
    /// - Parameters:
    ///   - externalChanges: Also see commits made by other connections and other processes on the
    ///     same file, by polling `PRAGMA data_version` at this interval on one connection shared by
    ///     every observation of this database. nil (the default) sees this database's own writes only.
    ///   - fetch: Reads the value, on a reader connection; it must not write.
    public func observe<Value: Sendable>(
        externalChanges: Duration? = nil,
        _ fetch: @escaping @Sendable (Connection) throws -> Value
    ) -> DatabaseObservation<Value> {
        makeObservation(externalChanges: externalChanges, fetch: fetch, isDuplicate: nil)
    }

    /// Observes `fetch`, skipping values equal to the last one delivered.
    public func observe<Value: Sendable & Equatable>(
        externalChanges: Duration? = nil,
        _ fetch: @escaping @Sendable (Connection) throws -> Value
    ) -> DatabaseObservation<Value> {
        makeObservation(externalChanges: externalChanges, fetch: fetch, isDuplicate: { $0 == $1 })
    }

    /// Observes `fetch` for code that is not async: `onChange` receives each value, or the
    /// fetch's error, until the token is cancelled or dropped.
    ///
    /// After an error from below the fetch (an I/O error, a full disk, a lock: `SQLITE_IOERR`,
    /// `SQLITE_FULL`, `SQLITE_BUSY`, ...) the observation resumes by itself, delivering the current
    /// value once a fetch succeeds again (retrying after 10 ms, doubling up to 2 s). Any other error
    /// ends it.
    ///
    /// ```swift
    /// let token = database.observe({ try $0.query("SELECT count(*) FROM players") as Int? ?? 0 }) { result in
    ///     if case .success(let count) = result { print("players:", count) }
    /// }
    /// ```
    public func observe<Value: Sendable>(
        externalChanges: Duration? = nil,
        _ fetch: @escaping @Sendable (Connection) throws -> Value,
        onChange: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> ObservationToken {
        ObservationToken(observation: observe(externalChanges: externalChanges, fetch), onChange: onChange)
    }

    /// Observes `fetch` for code that is not async, skipping values equal to the last one delivered.
    public func observe<Value: Sendable & Equatable>(
        externalChanges: Duration? = nil,
        _ fetch: @escaping @Sendable (Connection) throws -> Value,
        onChange: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> ObservationToken {
        ObservationToken(observation: observe(externalChanges: externalChanges, fetch), onChange: onChange)
    }

    /// Observes `fetch` while `body` runs: `onChange` receives each value until `body` returns or
    /// throws, and no token can be dropped by mistake.
    ///
    /// ```swift
    /// try await database.withObservation({ try $0.query("SELECT count(*) FROM players") as Int? ?? 0 },
    ///                                    onChange: { print($0) }) {
    ///     try await importPlayers()          // onChange hears each commit while this runs
    /// }
    /// ```
    /// - Throws: What `body` throws; the fetch's errors go to `onChange`.
    public func withObservation<Value: Sendable, T>(
        externalChanges: Duration? = nil, _ fetch: @escaping @Sendable (Connection) throws -> Value,
        onChange: @escaping @Sendable (Result<Value, any Error>) -> Void, during body: () async throws -> T
    ) async rethrows -> T {
        try await keeping(observe(externalChanges: externalChanges, fetch, onChange: onChange), during: body)
    }

    /// Observes `fetch` while `body` runs, skipping values equal to the last one delivered.
    ///
    /// - Throws: What `body` throws; the fetch's errors go to `onChange`.
    public func withObservation<Value: Sendable & Equatable, T>(
        externalChanges: Duration? = nil, _ fetch: @escaping @Sendable (Connection) throws -> Value,
        onChange: @escaping @Sendable (Result<Value, any Error>) -> Void, during body: () async throws -> T
    ) async rethrows -> T {
        try await keeping(observe(externalChanges: externalChanges, fetch, onChange: onChange), during: body)
    }

    /// Runs `body`, then ends the observation `token` stands for, however `body` ends.
    private func keeping<T>(_ token: ObservationToken, during body: () async throws -> T) async rethrows -> T {
        defer { token.cancel() }
        return try await body()
    }
}

extension Database: DatabaseObservable {
    /// How many observations of this database are running (registered and not yet ended).
    public var activeObservationCount: Int { writerQueue.observationCenter.activeObservationCount }

    /// The observation the `observe` methods return: fetches run on a reader of the pool.
    public func makeObservation<Value: Sendable>(
        externalChanges interval: Duration?,
        fetch: @escaping @Sendable (Connection) throws -> Value,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?
    ) -> DatabaseObservation<Value> {
        let writer = writerQueue
        let pool = readerPool
        let readsOnWriter = readsUseWriter
        let workTracker = workTracker
        return DatabaseObservation(
            center: writer.observationCenter,
            externalChanges: readsOnWriter
                ? nil
                : interval.map { interval in
                    ExternalChanges(interval: interval) {
                        try Connection(storageLocation: pool.storageLocation, tableLockPolicy: pool.tableLockPolicy, flags: pool.flags)
                    }
                },
            fetchOnReader: {
                let body: @Sendable (Connection) throws -> ObservedValue<Value> = { connection in
                    connection.eventHandler?.observationDidFetch(on: connection)
                    let (value, region) = try connection.recordingReads { try fetch(connection) }
                    return ObservedValue(value: value, region: region)
                }
                let submit: (@escaping @Sendable (Connection) throws -> ObservedValue<Value>) async throws -> ObservedValue<Value> = { body in
                    readsOnWriter ? try await writer.perform(body) : try await pool.performOnCallingThread(body)
                }
                // Through the work tracker once there is one, as every other call: a graceful
                // shutdown then refuses, counts and interrupts fetches too.
                let observed: ObservedValue<Value>
                if let tracker = workTracker.current {
                    observed = try await tracker.perform(.read, onReader: !readsOnWriter, closure: body, submit: submit)
                } else {
                    observed = try await submit(body)
                }
                return (observed.value, observed.region)
            },
            isDuplicate: isDuplicate
        )
    }
}

extension ConnectionQueue: DatabaseObservable {
    /// How many observations of this queue's connection are running.
    public var activeObservationCount: Int { observationCenter.activeObservationCount }

    /// The observation the `observe` methods return: fetches run on the queue.
    public func makeObservation<Value: Sendable>(
        externalChanges interval: Duration?,
        fetch: @escaping @Sendable (Connection) throws -> Value,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?
    ) -> DatabaseObservation<Value> {
        let path = PollingTarget(connection: connection)
        return DatabaseObservation(
            center: observationCenter,
            externalChanges: interval.flatMap { interval in
                path.map { target in ExternalChanges(interval: interval) { try target.open() } }
            },
            fetchOnReader: { [self] in
                let observed = try await perform { connection in
                    connection.eventHandler?.observationDidFetch(on: connection)
                    let (value, region) = try connection.recordingReads { try fetch(connection) }
                    return ObservedValue(value: value, region: region)
                }
                return (observed.value, observed.region)
            },
            isDuplicate: isDuplicate
        )
    }
}

/// A fetched value with the region it read, passed back from a reader.
private struct ObservedValue<Value: Sendable>: Sendable {
    let value: Value
    let region: DatabaseAccess
}

/// The file a queue's connection opened, for the external-change poller's own connection; nil for
/// a database other connections cannot open (in memory, temporary).
private struct PollingTarget: Sendable {
    let path: String

    init?(connection: Connection) {
        let path = connection.openedPath
        guard !OpenFlags.isPrivateToEachConnection(path: path, flags: 0) else { return nil }
        self.path = path
    }

    func open() throws -> Connection {
        try Connection(storageLocation: .onDisk(path), flags: OpenFlags.make(readOnly: true))
    }
}
