// Connection, with Statements the kernel: the connection handle and what is built on it once
// (open flags and gate, errors and result codes, limits, the authorizer hub, and the slots and
// observers the layers above register). Every other folder and module calls it; it names none of them.

import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A connection to one SQLite database.
///
/// ```swift
/// let connection = try Connection(path: "path_to_db")
/// try connection.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)")
/// try connection.run("INSERT INTO cars VALUES(?, ?, ?)", 1, "Audi", 52_642)
/// let count: Int? = try connection.query("SELECT count(*) FROM cars")
/// ```
///
/// A connection is used by one thread at a time; share it across threads through a
/// `ConnectionQueue` or a `Database`. See <https://www.sqlite.org/c3ref/open.html>.
open class Connection {
    /// Kinds of `BEGIN` for ``transaction(transactionType:closure:)``.
    public enum TransactionType: String, Sendable {
        /// Takes locks only when the transaction first reads or writes (SQLite's default).
        case deferred = "DEFERRED"
        /// Takes the write lock at `BEGIN`, so other writers wait but readers go on.
        case immediate = "IMMEDIATE"
        /// Takes the write lock at `BEGIN`; outside WAL mode, readers are locked out too.
        case exclusive = "EXCLUSIVE"
    }

    /// What `execute`, `prepare` and `step` do on a table lock (`SQLITE_LOCKED`).
    public var tableLockPolicy: TableLockPolicy

    /// The `sqlite3 *` handle; valid for the connection's whole life.
    public let handle: SQLiteConnectionHandle

    /// Statements prepared for the convenience calls (`run`, `query`, helpers), keyed by SQL.
    package let statementCache = StatementCache(capacity: 64)

    /// Closures registered with SQLite (functions, hooks, ...), kept alive while registered.
    var callbackBoxes: [String: AnyObject] = [:]

    /// The path the connection was opened with (`":memory:"`, `""` for temporary, or a file).
    package let openedPath: String

    /// The values of the `ConnectionSlot`s higher layers declared, by slot index; nil until used.
    // Read once per call by the layers that keep state here (one thread at a time, as the
    // connection), so the runtime exclusivity check buys nothing.
    @exclusivity(unchecked) final var slotValues: [AnyObject?] = []

    /// The one authorizer SQLite calls; the user's rules and observation's recorders hang off it.
    package let authorizerHub = AuthorizerHub()

    /// What the layers above registered to hear of this connection's work (``ConnectionObserver``):
    /// observation's access monitor, the event reporter, the transaction wrappers' failure watch.
    /// Called on failures, finished statements and checkpoints; the hot path reads only
    /// ``executionObservers``.
    // Read on every execution; a connection is used by one thread at a time and observers are
    // added on its thread or before it is shared, so the runtime exclusivity check (~90
    // instructions) buys nothing.
    @exclusivity(unchecked) package final var observers: [any ConnectionObserver] = []

    /// The observers that hear of every execution (``ConnectionObserver/observesExecutions``):
    /// the only ones the hot path calls, so a transaction's failure watch costs it nothing.
    @exclusivity(unchecked) package final var executionObservers: [any ConnectionObserver] = []

    // MARK: - Opening

    /// Opens a connection with SQift's flag conveniences, kept so code that imports only `Strata`
    /// still builds: `import StrataSQift` for it, or open ``init(path:configuration:)``.
    ///
    /// - Parameters:
    ///   - storageLocation: Where the database lives (in memory by default).
    ///   - tableLockPolicy: What to do on a table lock (`SQLITE_LOCKED`).
    ///   - readOnly: `SQLITE_OPEN_READONLY` instead of `READWRITE | CREATE`.
    ///   - multiThreaded: `SQLITE_OPEN_NOMUTEX` (one thread at a time, the fast choice) instead of
    ///     `FULLMUTEX`.
    ///   - sharedCache: `SQLITE_OPEN_SHAREDCACHE` instead of `PRIVATECACHE`.
    /// - Throws: `SQLiteError` when the file cannot be opened (`SQLITE_CANTOPEN`, ...).
    @_disfavoredOverload
    @available(*, deprecated, message: "SQift's opener: import StrataSQift, or use Connection(path:configuration:)")
    public convenience init(
        storageLocation: StorageLocation = .inMemory,
        tableLockPolicy: TableLockPolicy = .fastFail,
        readOnly: Bool = false,
        multiThreaded: Bool = true,
        sharedCache: Bool = false
    ) throws {
        let flags = OpenFlags.make(readOnly: readOnly, multiThreaded: multiThreaded, sharedCache: sharedCache)
        try self.init(storageLocation: storageLocation, tableLockPolicy: tableLockPolicy, flags: flags)
    }

    /// Opens a connection with explicit `sqlite3_open_v2` flags.
    ///
    /// A path is a file path, as in SQift: a relative path beginning with `file:` names a file,
    /// even where SQLite was built to parse such names as URIs. Pass `SQLITE_OPEN_URI` in `flags`
    /// to open a URI (`file:data.db?mode=ro`).
    /// - Throws: `SQLiteError` when the database cannot be opened.
    public init(storageLocation: StorageLocation, tableLockPolicy: TableLockPolicy = .fastFail, flags: Int32) throws {
        var handle: SQLiteConnectionHandle?
        let flags = OpenFlags.adding(uriFlagFor: storageLocation.path, to: flags)
        let code = OpenGate.opening { sqlite3_open_v2(OpenFlags.openPath(storageLocation.path, flags: flags), &handle, flags, nil) }
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(handle: handle, code: code == SQLITE_OK ? SQLITE_CANTOPEN : code)
            sqlite3_close_v2(handle)
            throw SQLiteError(
                code: error.code,
                message: "\(error.message) (path: \"\(storageLocation.path)\")",
                extendedCode: error.extendedCode
            )
        }
        self.handle = handle
        self.tableLockPolicy = tableLockPolicy
        self.openedPath = storageLocation.path
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        // Before statements are finalized: their last trace events must not hand the event
        // handler a connection being destroyed.
        endTraceReports()
        statementCache.removeAll()
        // A statement still unfinalized (one the app kept, a cursor) makes `sqlite3_close_v2` leave
        // a zombie that SQLite closes only when that statement is finalized: its last profile
        // event, and the rollback of a transaction left open, then call the trace and hooks after
        // this object is gone. What SQLite holds a pointer to must outlive that moment.
        if sqlite3_next_stmt(handle, nil) != nil { keepCallbacksUntilClosed() }
        sqlite3_close_v2(handle)
    }

    /// Hands the callback boxes and the authorizer hub (everything SQLite holds by a +0 pointer)
    /// to SQLite itself: a function registered with a destroy callback is destroyed when the
    /// connection finally closes, after the rollback of an open transaction. Where SQLite cannot
    /// take it, the callbacks are unregistered instead, so nothing calls through a freed pointer.
    private func keepCallbacksUntilClosed() {
        let kept: [AnyObject] = Array(callbackBoxes.values) + [authorizerHub]
        let pointer = CallbackBox(kept).retainedPointer()
        let code = sqlite3_create_function_v2(
            handle, "strata_connection_callbacks_until_close", 0, SQLITE_UTF8, pointer,
            { context, _, _ in sqlite3_result_null(context) }, nil, nil, { CallbackBox<[AnyObject]>.release($0) }
        )
        // SQLite calls the destroy callback itself when registration fails.
        guard code != SQLITE_OK else { return }
        sqlite3_trace_v2(handle, 0, nil, nil)
        sqlite3_commit_hook(handle, nil, nil)
        sqlite3_rollback_hook(handle, nil, nil)
        sqlite3_update_hook(handle, nil, nil)
        sqlite3_busy_handler(handle, nil, nil)
        sqlite3_set_authorizer(handle, nil, nil)
    }

    // MARK: - Properties

    /// The main database's file path (`""` for in-memory and temporary databases).
    public var fileName: String {
        sqlite3_db_filename(handle, "main").map { String(cString: $0) } ?? ""
    }

    /// Whether the main database is read-only.
    public var readOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Whether the SQLite library was compiled thread-safe.
    public var threadSafe: Bool { sqlite3_threadsafe() > 0 }

    /// The rowid of the most recent successful INSERT on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// Rows changed since the connection opened.
    public var totalChanges: Int { Int(sqlite3_total_changes(handle)) }

    /// Whether a transaction is open (the connection is not in autocommit mode).
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    // MARK: - Executing

    /// Runs one or more `;`-separated statements, ignoring any rows they return.
    ///
    /// ```swift
    /// try connection.execute("PRAGMA foreign_keys = true; PRAGMA journal_mode = WAL")
    /// ```
    /// Statements run in order; when one fails the earlier ones stay done (as `sqlite3_exec`).
    /// Values must not be spliced into `sql`: use `run(_:_:)` to bind them.
    /// - Throws: `SQLiteError` from the first statement that fails to compile or run, with that
    ///   statement's own text as its `sql`; `SQLITE_MISUSE` before anything runs when `sql` holds
    ///   a NUL character (where `sqlite3_exec` would silently stop reading).
    public func execute(_ sql: SQL) throws {
        let cursor = statements(in: sql)
        // Each statement runs through Statement.run(), which owns table-lock polling.
        while let statement = try cursor.next() { try statement.run() }
    }

    /// Compiles the next statement of `text` from byte `offset` on; nil when only whitespace,
    /// comments or empty statements (`;`) remain. Retries on table locks as the policy says.
    ///
    /// `text` holds no NUL byte and is followed in memory by one: SQLite reads it from `offset` to
    /// the end of the one statement there (length -1), so a script costs one pass however many
    /// statements it holds, and SQLite's length limit (`SQLITE_LIMIT_SQL_LENGTH`) applies to each
    /// statement, not to the script. `persistent` asks SQLite to keep the statement for long
    /// (`SQLITE_PREPARE_PERSISTENT`, SQLite 3.20+), which the statement cache does.
    /// - Returns: The statement, the byte range of its text (from its first token to just past its
    ///   `;`, SQLite's tail), and, on a monitored connection, what it reads and writes.
    /// - Throws: SQLite's error, carrying `failingSQL` or else the failing statement's own text.
    func prepareStatement(
        in text: UnsafeBufferPointer<UInt8>,
        from offset: Int,
        persistent: Bool = false,
        failingSQL: SQL? = nil
    ) throws -> (handle: SQLiteStatementHandle, text: Range<Int>, access: StatementAccess?)? {
        guard let base = text.baseAddress else { return nil }
        // Only an installed hub hears the compile; otherwise the access is learned when it runs.
        let captures = !executionObservers.isEmpty && authorizerHub.isMonitoring
        defer { if captures { authorizerHub.capture = nil } }
        var position = sqlStatementStart(in: text[offset...])
        // Empty statements (`;;;`) compile to nothing: skip them in a loop, not by recursion.
        while position < text.count {
            var statement: SQLiteStatementHandle?
            var tail: UnsafePointer<CChar>?
            let start = UnsafeRawPointer(base + position).assumingMemoryBound(to: CChar.self)
            while true {
                if captures { authorizerHub.capture = StatementAccess() }
                let code = prepare(start, -1, persistent: persistent, &statement, &tail)
                if code == SQLITE_OK { break }
                if code & 0xFF == SQLITE_LOCKED, let interval = tableLockPolicy.pollIntervalMicroseconds {
                    usleep(interval)
                    continue
                }
                let statementText = text[position...]
                let error = SQLiteError(
                    handle: handle, code: code,
                    sql: failingSQL ?? String(decoding: statementText[..<sqlStatementEnd(in: statementText)], as: UTF8.self)
                )
                if !observers.isEmpty { notifyStatementFailedToCompile(error, sql: error.sql) }
                throw error
            }
            let next = tail.map { UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0)) } ?? text.count
            if let statement {
                let access = captures ? authorizerHub.capture.map { widenedWhereUnderReported($0, of: statement) } : nil
                return (statement, position..<min(next, text.count), access)
            }
            guard next > position else { return nil }
            position = sqlStatementStart(in: text[min(next, text.count)...])
        }
        return nil
    }

    /// `sqlite3_prepare_v3` with `SQLITE_PREPARE_PERSISTENT` when asked and available, else
    /// `sqlite3_prepare_v2`.
    private func prepare(
        _ sql: UnsafePointer<CChar>, _ length: Int32, persistent: Bool,
        _ statement: inout SQLiteStatementHandle?, _ tail: inout UnsafePointer<CChar>?
    ) -> Int32 {
        if persistent, Connection.supportsPersistentPrepare {
            return sqlite3_prepare_v3(handle, sql, length, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail)
        }
        return sqlite3_prepare_v2(handle, sql, length, &statement, &tail)
    }

    /// Whether the SQLite library in use has `sqlite3_prepare_v3` (3.20.0 and later).
    static let supportsPersistentPrepare = sqlite3_libversion_number() >= 3_020_000

    /// Interrupts the statement running on this connection; it fails with `SQLITE_INTERRUPT`.
    /// Safe to call from any thread.
    public func interrupt() {
        sqlite3_interrupt(handle)
    }

    /// Attaches another database under `name` (`ATTACH DATABASE ? AS ?`, both bound).
    public func attachDatabase(from storageLocation: StorageLocation, withName name: String) throws {
        try run("ATTACH DATABASE ? AS ?", storageLocation.path, name)
    }

    /// Detaches the database attached as `name`.
    public func detachDatabase(named name: String) throws {
        try run("DETACH DATABASE ?", name)
    }

    /// Throws the connection's current error when `code` is not a success code; returns `code`.
    @discardableResult
    package func check(_ code: Int32) throws -> Int32 {
        switch code {
        case SQLITE_OK, SQLITE_ROW, SQLITE_DONE: return code
        default: throw SQLiteError(handle: handle, code: code)
        }
    }
}

extension Connection: CustomStringConvertible {
    /// The database file name, or that the database is in memory or temporary, for logging.
    public var description: String {
        "Connection(\(fileName.isEmpty ? "in-memory or temporary" : fileName))"
    }
}
