// A connection's run-time limits (`sqlite3_limit`), its memory and cache counters
// (`sqlite3_db_status`) and the process-wide ones (`sqlite3_status64`).

import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// One of SQLite's run-time limits (<https://www.sqlite.org/c3ref/c_limit_attached.html>).
public enum SQLiteLimit: CaseIterable, Sendable, Hashable {
    /// The largest string or blob, in bytes (`SQLITE_LIMIT_LENGTH`).
    case length
    /// The longest SQL statement, in bytes (`SQLITE_LIMIT_SQL_LENGTH`).
    case sqlLength
    /// The most columns in a table, index, view, result or `ORDER BY` (`SQLITE_LIMIT_COLUMN`).
    case column
    /// The deepest expression tree (`SQLITE_LIMIT_EXPR_DEPTH`).
    case exprDepth
    /// The most terms in a compound `SELECT` (`SQLITE_LIMIT_COMPOUND_SELECT`).
    case compoundSelect
    /// The most virtual-machine instructions in one statement (`SQLITE_LIMIT_VDBE_OP`).
    case vdbeOp
    /// The most arguments to a function (`SQLITE_LIMIT_FUNCTION_ARG`).
    case functionArg
    /// The most attached databases (`SQLITE_LIMIT_ATTACHED`).
    case attached
    /// The longest `LIKE` or `GLOB` pattern (`SQLITE_LIMIT_LIKE_PATTERN_LENGTH`).
    case likePatternLength
    /// The largest parameter number (`SQLITE_LIMIT_VARIABLE_NUMBER`).
    case variableNumber
    /// The deepest trigger recursion (`SQLITE_LIMIT_TRIGGER_DEPTH`).
    case triggerDepth
    /// The most auxiliary worker threads one statement may start (`SQLITE_LIMIT_WORKER_THREADS`).
    case workerThreads

    /// SQLite's code for the limit.
    public var code: Int32 {
        switch self {
        case .length: return SQLITE_LIMIT_LENGTH
        case .sqlLength: return SQLITE_LIMIT_SQL_LENGTH
        case .column: return SQLITE_LIMIT_COLUMN
        case .exprDepth: return SQLITE_LIMIT_EXPR_DEPTH
        case .compoundSelect: return SQLITE_LIMIT_COMPOUND_SELECT
        case .vdbeOp: return SQLITE_LIMIT_VDBE_OP
        case .functionArg: return SQLITE_LIMIT_FUNCTION_ARG
        case .attached: return SQLITE_LIMIT_ATTACHED
        case .likePatternLength: return SQLITE_LIMIT_LIKE_PATTERN_LENGTH
        case .variableNumber: return SQLITE_LIMIT_VARIABLE_NUMBER
        case .triggerDepth: return SQLITE_LIMIT_TRIGGER_DEPTH
        case .workerThreads: return SQLITE_LIMIT_WORKER_THREADS
        }
    }

    /// The C name without its prefix, lowercased (`"sql_length"`), for reports.
    public var name: String {
        switch self {
        case .length: return "length"
        case .sqlLength: return "sql_length"
        case .column: return "column"
        case .exprDepth: return "expr_depth"
        case .compoundSelect: return "compound_select"
        case .vdbeOp: return "vdbe_op"
        case .functionArg: return "function_arg"
        case .attached: return "attached"
        case .likePatternLength: return "like_pattern_length"
        case .variableNumber: return "variable_number"
        case .triggerDepth: return "trigger_depth"
        case .workerThreads: return "worker_threads"
        }
    }
}

/// A connection's run-time limits, read and set by ``SQLiteLimit``.
///
/// ```swift
/// connection.limits[.length] = 1_000_000      // no string or blob past 1 MB
/// let attached = connection.limits[.attached]
/// ```
/// A value above the limit's compile-time maximum is lowered to it; a negative one is ignored.
/// See <https://www.sqlite.org/c3ref/limit.html>.
public struct ConnectionLimits {
    let connection: Connection

    /// The limit's current value; setting it changes it for this connection only.
    public subscript(limit: SQLiteLimit) -> Int {
        get { Int(sqlite3_limit(connection.handle, limit.code, -1)) }
        nonmutating set {
            guard newValue >= 0 else { return }
            sqlite3_limit(connection.handle, limit.code, Int32(clamping: newValue))
        }
    }

    /// Every limit's current value, in `SQLiteLimit.allCases` order.
    public var all: [(limit: SQLiteLimit, value: Int)] {
        SQLiteLimit.allCases.map { ($0, self[$0]) }
    }
}

extension Connection {
    /// The connection's run-time limits (`sqlite3_limit`).
    public var limits: ConnectionLimits { ConnectionLimits(connection: self) }
}

/// A counter's value now and the most it has been since the last reset.
public struct StatusValue: Sendable, Hashable {
    /// The value now.
    public let current: Int64
    /// The largest value since SQLite started or the high-water mark was last reset (0 for the
    /// counters SQLite keeps no high-water mark of).
    public let highwater: Int64

    /// A value with both parts.
    public init(current: Int64, highwater: Int64) {
        self.current = current
        self.highwater = highwater
    }

    /// Reads one counter through `read`, a call to `sqlite3_db_status` or `sqlite3_status64`
    /// that fills in the value now and the high-water mark (at the width that call uses).
    init<Counter: BinaryInteger>(reading read: (UnsafeMutablePointer<Counter>, UnsafeMutablePointer<Counter>) -> Int32) {
        var current: Counter = 0
        var highwater: Counter = 0
        _ = read(&current, &highwater)
        self.init(current: Int64(current), highwater: Int64(highwater))
    }
}

/// A connection's memory and cache counters (`sqlite3_db_status`), in bytes or events.
///
/// ```swift
/// let status = connection.status()
/// print(status.cacheUsed.current, status.cacheHit.current, status.cacheMiss.current)
/// ```
/// See <https://www.sqlite.org/c3ref/c_dbstatus_options.html>.
public struct ConnectionStatus: Sendable, Hashable {
    /// Lookaside memory slots in use (and most in use).
    public var lookasideUsed: StatusValue
    /// Lookaside allocations served (highwater only).
    public var lookasideHit: StatusValue
    /// Lookaside misses because the request was too big (highwater only).
    public var lookasideMissSize: StatusValue
    /// Lookaside misses because every slot was taken (highwater only).
    public var lookasideMissFull: StatusValue
    /// Bytes of page cache in use (current only).
    public var cacheUsed: StatusValue
    /// Bytes of page cache in use, shared caches split among their connections (current only).
    public var cacheUsedShared: StatusValue
    /// Bytes used by the schemas (current only).
    public var schemaUsed: StatusValue
    /// Bytes used by prepared statements (current only).
    public var statementUsed: StatusValue
    /// Page cache hits (current only; reset when asked).
    public var cacheHit: StatusValue
    /// Page cache misses (current only; reset when asked).
    public var cacheMiss: StatusValue
    /// Pages written to disk (current only; reset when asked).
    public var cacheWrite: StatusValue
    /// Dirty pages written mid-transaction because the cache was full (current only).
    public var cacheSpill: StatusValue
    /// Whether deferred foreign key constraints are outstanding (1) or not (0).
    public var deferredForeignKeys: StatusValue
}

extension Connection {
    /// One of `sqlite3_db_status`'s counters: what ``status(resettingHighwater:)`` reads for
    /// each, and what a layer reads alone when it needs one.
    func statusValue(_ operation: Int32, resettingHighwater: Bool) -> StatusValue {
        StatusValue(reading: { sqlite3_db_status(handle, operation, $0, $1, resettingHighwater ? 1 : 0) })
    }

    /// The connection's memory and cache counters.
    ///
    /// - Parameter resettingHighwater: Reset the high-water marks (and the hit, miss, write and
    ///   spill counts) after reading them.
    public func status(resettingHighwater: Bool = false) -> ConnectionStatus {
        func value(_ operation: Int32) -> StatusValue { statusValue(operation, resettingHighwater: resettingHighwater) }
        return ConnectionStatus(
            lookasideUsed: value(SQLITE_DBSTATUS_LOOKASIDE_USED),
            lookasideHit: value(SQLITE_DBSTATUS_LOOKASIDE_HIT),
            lookasideMissSize: value(SQLITE_DBSTATUS_LOOKASIDE_MISS_SIZE),
            lookasideMissFull: value(SQLITE_DBSTATUS_LOOKASIDE_MISS_FULL),
            cacheUsed: value(SQLITE_DBSTATUS_CACHE_USED),
            cacheUsedShared: value(SQLITE_DBSTATUS_CACHE_USED_SHARED),
            schemaUsed: value(SQLITE_DBSTATUS_SCHEMA_USED),
            statementUsed: value(SQLITE_DBSTATUS_STMT_USED),
            cacheHit: value(SQLITE_DBSTATUS_CACHE_HIT),
            cacheMiss: value(SQLITE_DBSTATUS_CACHE_MISS),
            cacheWrite: value(SQLITE_DBSTATUS_CACHE_WRITE),
            cacheSpill: value(SQLITE_DBSTATUS_CACHE_SPILL),
            deferredForeignKeys: value(SQLITE_DBSTATUS_DEFERRED_FKS)
        )
    }
}

extension Connection {
    /// The error COMMIT would fail with for the deferred foreign keys outstanding now, or nil when
    /// none are. Releasing a savepoint checks none: a layer that runs several units of work in
    /// one transaction, a savepoint each (a hub's push), checks each unit as its own COMMIT would.
    package func outstandingDeferredForeignKeyError() -> SQLiteError? {
        guard statusValue(SQLITE_DBSTATUS_DEFERRED_FKS, resettingHighwater: false).current > 0 else { return nil }
        return SQLiteError(code: SQLITE_CONSTRAINT, message: "FOREIGN KEY constraint failed", extendedCode: SQLiteResultCode.constraintForeignKey.rawValue)
    }
}

/// The SQLite library's process-wide counters (`sqlite3_status64`), across every connection.
///
/// ```swift
/// let process = SQLiteProcessStatus.current()
/// print(process.memoryUsed.current, process.memoryUsed.highwater)
/// ```
/// See <https://www.sqlite.org/c3ref/c_status_malloc_count.html>.
public struct SQLiteProcessStatus: Sendable, Hashable {
    /// Bytes allocated through SQLite's allocator.
    public var memoryUsed: StatusValue
    /// Separate allocations outstanding.
    public var mallocCount: StatusValue
    /// The largest single allocation requested (highwater only).
    public var mallocSize: StatusValue
    /// Page-cache slots in use from the configured page-cache memory.
    public var pageCacheUsed: StatusValue
    /// Bytes of page cache that did not fit the configured page-cache memory.
    public var pageCacheOverflow: StatusValue
    /// The largest page-cache allocation requested (highwater only).
    public var pageCacheSize: StatusValue
    /// The deepest parser stack (highwater only; needs `YYTRACKMAXSTACKDEPTH`).
    public var parserStack: StatusValue

    /// The counters now.
    ///
    /// - Parameter resettingHighwater: Reset the high-water marks after reading them.
    public static func current(resettingHighwater: Bool = false) -> SQLiteProcessStatus {
        func value(_ operation: Int32) -> StatusValue {
            StatusValue(reading: { sqlite3_status64(operation, $0, $1, resettingHighwater ? 1 : 0) })
        }
        return SQLiteProcessStatus(
            memoryUsed: value(SQLITE_STATUS_MEMORY_USED),
            mallocCount: value(SQLITE_STATUS_MALLOC_COUNT),
            mallocSize: value(SQLITE_STATUS_MALLOC_SIZE),
            pageCacheUsed: value(SQLITE_STATUS_PAGECACHE_USED),
            pageCacheOverflow: value(SQLITE_STATUS_PAGECACHE_OVERFLOW),
            pageCacheSize: value(SQLITE_STATUS_PAGECACHE_SIZE),
            parserStack: value(SQLITE_STATUS_PARSER_STACK)
        )
    }
}
