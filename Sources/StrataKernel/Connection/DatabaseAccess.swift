// What a statement reads or writes, learned from SQLite's authorizer while the statement compiles:
// the one record of "which tables and columns" that observation compares reads against writes with.
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// The tables and columns a statement (or a transaction, or a fetch) touches.
///
/// A whole table is touched by a read that names no column (`count(*)`), an INSERT and a DELETE;
/// an UPDATE touches the columns it assigns. Anything that cannot be pinned to tables (a schema
/// change, a pragma, an attach) touches everything.
package struct DatabaseAccess: Sendable, Equatable {
    /// Lowercased names of tables touched as a whole.
    package private(set) var wholeTables: Set<String> = []
    /// Lowercased table name → lowercased names of the columns touched.
    package private(set) var columns: [String: Set<String>] = [:]
    /// Whether everything counts as touched.
    package private(set) var isEverything = false
    /// Whether the statement ends a transaction by rolling it back (`ROLLBACK`, not `ROLLBACK TO`).
    package private(set) var rollsBack = false
    /// Whether the statement opens a transaction (`BEGIN`, `SAVEPOINT`).
    package private(set) var beginsTransaction = false
    /// Whether the statement may commit a transaction (`COMMIT`, `END`, `RELEASE`).
    package private(set) var endsTransaction = false

    package init() {}

    /// Everything, for what cannot be analysed (a statement compiled before tracking began).
    package static var everything: DatabaseAccess {
        var access = DatabaseAccess()
        access.isEverything = true
        return access
    }

    /// Touches nothing at all.
    package var isEmpty: Bool { !isEverything && wholeTables.isEmpty && columns.isEmpty }

    package mutating func insertTable(_ table: String) {
        let table = table.lowercased()
        wholeTables.insert(table)
        columns[table] = nil
    }

    package mutating func insertColumn(_ column: String, of table: String) {
        let table = table.lowercased()
        guard !wholeTables.contains(table) else { return }
        if column.isEmpty { insertTable(table); return }
        columns[table, default: []].insert(column.lowercased())
    }

    package mutating func insertEverything() { isEverything = true }

    package mutating func formUnion(_ other: DatabaseAccess) {
        if other.isEverything { isEverything = true }
        if isEverything || other.isEmpty { return }
        // The common case, one statement per transaction, copies instead of hashing.
        if wholeTables.isEmpty && columns.isEmpty {
            wholeTables = other.wholeTables
            columns = other.columns
            return
        }
        // Names in `other` are lowercased already.
        for table in other.wholeTables where !wholeTables.contains(table) {
            wholeTables.insert(table)
            columns[table] = nil
        }
        for (table, names) in other.columns where !wholeTables.contains(table) {
            columns[table, default: []].formUnion(names)
        }
    }

    /// Whether a change to `written` can alter what a read of `self` returns.
    package func isAffected(by written: DatabaseAccess) -> Bool {
        if isEmpty || written.isEmpty { return false }
        if isEverything || written.isEverything { return true }
        for table in written.wholeTables where Self.has(table, in: wholeTables) || Self.hasKey(table, in: columns) { return true }
        for (table, names) in written.columns {
            if Self.has(table, in: wholeTables) { return true }
            if !columns.isEmpty, let read = columns[table], !read.isDisjoint(with: names) { return true }
        }
        return false
    }

    // A commit asks every observer's region this, on the writer's thread: a few names compare
    // faster one by one (a short string's `==` is a word comparison) than hashed (~200
    // instructions for the hash alone). Same answers: `Set.contains` compares with `==` too.
    private static let scanLimit = 4

    @inline(__always)
    private static func has(_ name: String, in names: Set<String>) -> Bool {
        if names.isEmpty { return false }
        if names.count <= scanLimit { return names.contains { $0 == name } }
        return names.contains(name)
    }

    @inline(__always)
    private static func hasKey(_ name: String, in columns: [String: Set<String>]) -> Bool {
        if columns.isEmpty { return false }
        if columns.count <= scanLimit { return columns.keys.contains { $0 == name } }
        return columns[name] != nil
    }

    // MARK: - Recording authorizer reports

    /// Records what a statement being compiled reads (for a fetch's region).
    mutating func recordRead(action: Int32, _ first: String?, _ second: String?) {
        switch action {
        case SQLITE_READ:
            if let table = first { insertColumn(second ?? "", of: table) }
        case SQLITE_PRAGMA:
            // A pragma reads state no table names (user_version, data_version, table_info...).
            insertEverything()
        default:
            break
        }
    }

    /// Records what a statement being compiled writes (for the commit that follows).
    mutating func recordWrite(action: Int32, _ first: String?, _ second: String?) {
        switch action {
        case SQLITE_INSERT, SQLITE_DELETE:
            // SQLite reports the schema table itself for DDL, which is handled below.
            if let table = first { insertTable(table) }
        case SQLITE_UPDATE:
            if let table = first { insertColumn(second ?? "", of: table) }
        case SQLITE_TRANSACTION:
            switch first?.uppercased() {
            case "ROLLBACK": rollsBack = true
            case "BEGIN": beginsTransaction = true
            default: endsTransaction = true
            }
        case SQLITE_SAVEPOINT:
            switch first?.uppercased() {
            case "BEGIN": beginsTransaction = true
            case "RELEASE": endsTransaction = true
            default: break
            }
        case SQLITE_PRAGMA:
            // Reading a pragma changes nothing; setting one may change what a fetch sees.
            if second != nil { insertEverything() }
        case SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW,
            SQLITE_DROP_INDEX, SQLITE_DROP_TABLE, SQLITE_DROP_TRIGGER, SQLITE_DROP_VIEW,
            SQLITE_ALTER_TABLE, SQLITE_CREATE_VTABLE, SQLITE_DROP_VTABLE, SQLITE_ATTACH, SQLITE_DETACH,
            SQLITE_REINDEX, SQLITE_ANALYZE,
            SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TEMP_TABLE, SQLITE_CREATE_TEMP_TRIGGER, SQLITE_CREATE_TEMP_VIEW,
            SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_TEMP_TRIGGER, SQLITE_DROP_TEMP_VIEW:
            insertEverything()
        default:
            break
        }
    }
}

/// What one compiled statement reads and writes.
package struct StatementAccess: Sendable, Equatable {
    package var reads = DatabaseAccess()
    package var writes = DatabaseAccess()

    /// For a statement that could not be analysed: it may read and write anything.
    static var unknown: StatementAccess { StatementAccess(reads: .everything, writes: .everything) }
}

/// The one authorizer SQLite calls on a connection: it reports to the user's authorizer (SQift's
/// `authorizer(_:)`) and, while a statement compiles on a monitored connection, records what the
/// statement reads and writes; so observation never displaces a user's rules nor they it.
package final class AuthorizerHub {
    /// The authorizer set through ``Connection/authorizer(_:)``.
    var user: Connection.Authorizer?
    /// Collects what the statement being compiled reads and writes, while Strata compiles one on
    /// a monitored connection.
    var capture: StatementAccess?
    /// Whether SQLite currently calls the hub.
    var isInstalled = false
    /// Set once the connection is monitored: the hub stays installed to capture every compile.
    package var isMonitoring = false
    /// Set while Strata runs a statement of its own: the user's authorizer (and trace) never
    /// hear of it.
    package let bookkeeping = BookkeepingMarker()

    /// Hears every action of the statements compiled while a layer above inspects them
    /// (``Connection/inspectingCompiles(_:_:)``); never changes an answer.
    var inspector: ((Int32, String?, String?, String?, String?) -> Void)?

    /// Set once changes are recorded on the connection (``Connection/deleteRowByRow()``): every
    /// `DELETE` then removes its rows one by one, each a row event.
    var deletesRowByRow = false

    var isNeeded: Bool { user != nil || isMonitoring || inspector != nil || deletesRowByRow }

    func authorize(
        _ code: Int32, _ p1: UnsafePointer<CChar>?, _ p2: UnsafePointer<CChar>?,
        _ p3: UnsafePointer<CChar>?, _ p4: UnsafePointer<CChar>?
    ) -> Int32 {
        let string: (UnsafePointer<CChar>?) -> String? = { $0.map { String(cString: $0) } }
        if let inspector { inspector(code, string(p1), string(p2), string(p3), string(p4)) }
        if capture != nil {
            // Temporary tables count too: no reader of the pool sees them, but a fetch on this
            // connection (a ConnectionQueue's, an in-memory database's) does.
            let first = string(p1), second = string(p2)
            capture?.writes.recordWrite(action: code, first, second)
            capture?.reads.recordRead(action: code, first, second)
        }
        var answer = SQLITE_OK
        if let user, !bookkeeping.isActive {
            // An action code SQLite adds later is denied, as the user's authorizer cannot name it.
            guard let action = Connection.AuthorizerAction(rawValue: code) else { return SQLITE_DENY }
            answer = user(action, string(p1), string(p2), string(p3), string(p4)).code
        }
        // SQLite's truncate shortcut empties a table with no row event, so neither a session nor
        // the pre-update hook sees its rows go; IGNORE on a DELETE turns the shortcut off and
        // deletes them one by one. Never for the schema tables: there IGNORE skips a DROP.
        if deletesRowByRow, answer == SQLITE_OK { return rowByRow(code, p1) }
        return answer
    }

    /// The table a `DROP` being compiled removes: SQLite asks for a DELETE on it right after the
    /// drop's own action, and IGNORE there would skip the DROP.
    private var dropping: [CChar]?

    private func rowByRow(_ code: Int32, _ table: UnsafePointer<CChar>?) -> Int32 {
        switch code {
        case SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_VIEW, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_VTABLE:
            dropping = table.map { Array(UnsafeBufferPointer(start: $0, count: strlen($0) + 1)) }
            return SQLITE_OK
        case SQLITE_DELETE:
            guard let table, !isSchemaTable(table) else { return SQLITE_OK }
            if let dropped = dropping, strcmp(dropped, table) == 0 {
                dropping = nil
                return SQLITE_OK
            }
            dropping = nil
            return SQLITE_IGNORE
        default:
            dropping = nil
            return SQLITE_OK
        }
    }

    private func isSchemaTable(_ name: UnsafePointer<CChar>) -> Bool {
        sqlite3_strnicmp(name, "sqlite_", 7) == 0
    }
}
