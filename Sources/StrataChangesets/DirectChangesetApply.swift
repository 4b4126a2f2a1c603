// Applying a changeset with cached statements of our own where no change conflicts, to the same
// effect as `sqlite3changeset_apply`; declining, with nothing written, wherever that cannot be
// vouched for, so the caller runs SQLite's apply instead.
//
// Why: `sqlite3changeset_apply` runs `PRAGMA defer_foreign_keys` before and after each changeset,
// and a flag pragma expires every prepared statement of the connection, so a hub applying many
// small changesets in one transaction re-parsed all its statements twice per changeset. Here the
// pragma is set once (it lasts until the transaction ends) and each statement is prepared once.
//
// Each change runs the statement SQLite's apply would build for it (sqlite3session.c):
// - INSERT: `INSERT INTO main.t(c1, ...) VALUES (?, ...)`;
// - DELETE: `DELETE FROM main.t WHERE k1 = ? AND ... AND c IS ? ...` (key and old values; a
//   patchset's delete matches the key alone);
// - UPDATE: `UPDATE main.t SET c = ? ... WHERE k1 IS ? AND ... AND c IS ? ...` (the non-key
//   columns with a new value; the key, and a changeset's old values).
// A statement that fails, or changes no row or more than one, is what SQLite's apply hands its
// conflict handler (data, not found, conflict, constraint); foreign keys left unresolved are its
// foreign-key conflict. Each declines. So does a table the changeset and the schema describe
// differently (SQLite skips such a table), a field the statement cannot take (undefined where
// SQLite would bind NULL), or damaged bytes.
import Foundation
import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

/// Applies changesets that meet no conflict with the connection's own cached statements, or
/// declines with nothing written. One per connection and set of tables; reads the tables' shapes
/// when made, so make a new one after a schema change (a hub makes one per push transaction).
package final class DirectChangesetApplier {
    /// What a table's statements need: its name, its columns, its key flags as SQLite's changeset
    /// header writes them (each column's place in the key, 0 off it), and its statements' keys.
    final class Table {
        let name: String
        let columns: [String]
        let keyFlags: [UInt8]
        let insert: StatementCacheKey
        let delete: StatementCacheKey
        let patchsetDelete: StatementCacheKey
        /// A changeset DELETE's fields in its statement's parameter order (key columns first).
        let deleteOrder: [Int]
        /// How many key columns a patchset DELETE carries.
        let keyCount: Int
        /// UPDATE statements by the columns they set and match (a byte a column: 1 set, 2 matched).
        var updates: [[UInt8]: StatementCacheKey] = [:]

        init(name: String, columns: [String], keyFlags: [UInt8]) {
            self.name = name
            self.columns = columns
            self.keyFlags = keyFlags
            let table = "main." + quoteIdentifier(name)
            let quoted = columns.map(quoteIdentifier)
            insert = StatementCacheKey(
                reusing:
                    "INSERT INTO \(table)(\(quoted.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))")
            let keys = quoted.indices.filter { keyFlags[$0] != 0 }.map { "\(quoted[$0]) = ?" }
            let others = quoted.indices.filter { keyFlags[$0] == 0 }.map { "\(quoted[$0]) IS ?" }
            delete = StatementCacheKey(reusing: "DELETE FROM \(table) WHERE " + (keys + others).joined(separator: " AND "))
            patchsetDelete = StatementCacheKey(reusing: "DELETE FROM \(table) WHERE " + keys.joined(separator: " AND "))
            deleteOrder = keyFlags.indices.filter { keyFlags[$0] != 0 } + keyFlags.indices.filter { keyFlags[$0] == 0 }
            keyCount = keys.count
        }

        func update(_ shape: [UInt8]) -> StatementCacheKey {
            if let key = updates[shape] { return key }
            let quoted = columns.map(quoteIdentifier)
            let set = shape.indices.filter { shape[$0] & 1 != 0 }.map { "\(quoted[$0]) = ?" }
            let matched = shape.indices.filter { shape[$0] & 2 != 0 }.map { "\(quoted[$0]) IS ?" }
            let key = StatementCacheKey(
                reusing: "UPDATE main.\(quoteIdentifier(name)) SET \(set.joined(separator: ", ")) WHERE \(matched.joined(separator: " AND "))")
            updates[shape] = key
            return key
        }
    }

    /// Thrown inside the savepoint to undo what ran and decline.
    private struct Declined: Error {}

    private var tables: [[UInt8]: Table] = [:]
    /// How many changesets this applier applied, and how many it declined.
    package private(set) var applied = 0, declined = 0

    /// An applier for `tables` (as SQLite names them: ASCII case aside) as `connection`'s schema
    /// has them now. A table without a key, or with hidden or generated columns, is left out:
    /// changes to it are declined.
    package init(tables: [String], connection: Connection) throws {
        for table in tables {
            let all = try connection.schemaReader.columns(ofTable: table)
            guard !all.isEmpty, all.allSatisfy({ $0.hidden == 0 }), all.contains(where: { $0.primaryKeyIndex > 0 }),
                let name = try connection.schemaReader.table(named: table)?.name
            else { continue }
            self.tables[IdentifierSet.key(table)] = Table(
                name: name, columns: all.map(\.name), keyFlags: all.map { UInt8(clamping: $0.primaryKeyIndex) })
        }
    }

    /// Applies `changeset` to `connection`'s main database in a savepoint (inside the caller's
    /// transaction, with `PRAGMA defer_foreign_keys` on until it ends, as SQLite's apply has it
    /// while it runs), and returns true; or returns false with the database as it was, where a
    /// change meets a conflict or a shape this applier does not take (see the file's comment).
    /// `accepts` filters tables as SQLite's apply filter would: a table it refuses declines.
    /// - Throws: only what SQLite throws for the savepoint itself or the pragma.
    package func apply(_ changeset: Data, on connection: Connection, accepts: (String) -> Bool) throws -> Bool {
        guard !changeset.isEmpty, (try? ChangesetFormat.validate(changeset)) != nil else {
            declined += 1
            return false
        }
        let ordered = Changeset(data: changeset).insertsLast().data
        try deferForeignKeys(connection)
        do {
            try connection.strataSavepoint(named: "strata_direct_apply") {
                do {
                    try ordered.withUnsafeBytes { bytes in try run(bytes, connection, accepts) }
                } catch {
                    // A statement SQLite cannot prepare (a table past its limits) or any other
                    // failure of a change: SQLite's apply, run next, meets it its own way.
                    throw Declined()
                }
                if connection.outstandingDeferredForeignKeyError() != nil { throw Declined() }
            }
        } catch is Declined {
            declined += 1
            return false
        }
        // SQLite's statements wrote out of the observers' sight, as after SQLite's own apply.
        connection.noteWrites(.everything)
        applied += 1
        return true
    }

    /// Sets `PRAGMA defer_foreign_keys` unless it is on (setting it expires every prepared
    /// statement, so only when needed: once a transaction, and again after SQLite's own apply
    /// turned it off).
    private func deferForeignKeys(_ connection: Connection) throws {
        // Strata's own statements: out of the user's trace and authorizer.
        try connection.withBookkeeping {
            let on: Int = try connection.withStatement(cachedFor: Self.readDeferral) { statement in
                sqlite3_step(statement.handle) == SQLITE_ROW ? Int(sqlite3_column_int64(statement.handle, 0)) : 0
            }
            if on == 0 { try connection.execute("PRAGMA defer_foreign_keys = ON") }
        }
    }

    private static let readDeferral = StatementCacheKey(reusing: "PRAGMA defer_foreign_keys")

    /// Runs every change of validated, ordered changeset bytes; throws `Declined` at the first
    /// one that cannot be vouched for.
    private func run(_ bytes: UnsafeRawBufferPointer, _ connection: Connection, _ accepts: (String) -> Bool) throws {
        var reader = ChangesetFormat.BufferSource(bytes)
        var table: Table?
        var isPatchset = false
        var fields: [Range<Int>] = []
        func readFields(_ count: Int) {
            fields.removeAll(keepingCapacity: true)
            for _ in 0..<count { fields.append(reader.field()) }
        }
        while reader.offset < bytes.count {
            guard let marker = reader.byte() else { throw Declined() }
            switch marker {
            case UInt8(ascii: "T"), UInt8(ascii: "P"):
                isPatchset = marker == UInt8(ascii: "P")
                table = try header(&reader, accepts)
            case 0x12, 0x09, 0x17:
                guard let table else { throw Declined() }
                _ = reader.byte() // indirect: no part of an apply
                let width = table.columns.count
                switch marker {
                case 0x12:
                    readFields(width)
                    try runChange(table.insert, connection) { statement in
                        for (index, field) in fields.enumerated() { try bind(bytes, field, statement, Int32(index + 1)) }
                    }
                case 0x09:
                    if isPatchset {
                        readFields(table.keyCount)
                        try runChange(table.patchsetDelete, connection) { statement in
                            for (index, field) in fields.enumerated() { try bind(bytes, field, statement, Int32(index + 1)) }
                        }
                    } else {
                        readFields(width)
                        try runChange(table.delete, connection) { statement in
                            for (index, column) in table.deleteOrder.enumerated() { try bind(bytes, fields[column], statement, Int32(index + 1)) }
                        }
                    }
                default:
                    try runUpdate(table, isPatchset: isPatchset, &reader, bytes, connection)
                }
            default:
                throw Declined()
            }
        }
    }

    /// Reads a table header (after its marker): the table it names, when this applier has it with
    /// the same columns and key; declines otherwise.
    private func header(_ reader: inout ChangesetFormat.BufferSource, _ accepts: (String) -> Bool) throws -> Table {
        let (flags, name) = reader.tableHeaderBytes()
        let spelled = String(decoding: name, as: UTF8.self)
        // A name that is not valid UTF-8 reads otherwise in Swift than in SQLite.
        guard Array(spelled.utf8) == name, accepts(spelled), let table = tables[IdentifierSet.key(spelled)], table.keyFlags == flags
        else { throw Declined() }
        return table
    }

    /// Runs an UPDATE: the non-key columns with a new value are set; the key and (in a changeset)
    /// the columns with an old value are matched.
    private func runUpdate(
        _ table: Table, isPatchset: Bool, _ reader: inout ChangesetFormat.BufferSource, _ bytes: UnsafeRawBufferPointer,
        _ connection: Connection
    ) throws {
        let width = table.columns.count
        var old: [Range<Int>] = []
        if !isPatchset { for _ in 0..<width { old.append(reader.field()) } }
        var new: [Range<Int>] = []
        for _ in 0..<width { new.append(reader.field()) }
        // A patchset's update carries its key among the new values.
        let matchedFrom = isPatchset ? new : old
        var shape = [UInt8](repeating: 0, count: width)
        var setFields: [Range<Int>] = [], matchedFields: [Range<Int>] = []
        for column in 0..<width {
            let isKey = table.keyFlags[column] != 0
            if !isKey, bytes[new[column].lowerBound] != 0 {
                shape[column] |= 1
                setFields.append(new[column])
            }
            if isKey || (!isPatchset && bytes[old[column].lowerBound] != 0) {
                shape[column] |= 2
                matchedFields.append(matchedFrom[column])
            }
        }
        guard !setFields.isEmpty else { throw Declined() }
        try runChange(table.update(shape), connection) { statement in
            for (index, field) in (setFields + matchedFields).enumerated() { try bind(bytes, field, statement, Int32(index + 1)) }
        }
    }

    /// Binds with `bind`, steps once, and declines unless the statement finished having changed
    /// exactly one row.
    private func runChange(_ key: StatementCacheKey, _ connection: Connection, bind: (OpaquePointer) throws -> Void) throws {
        try connection.withStatement(cachedFor: key) { statement in
            try bind(statement.handle)
            guard sqlite3_step(statement.handle) == SQLITE_DONE, sqlite3_changes(connection.handle) == 1 else { throw Declined() }
        }
    }

    /// Binds one field of a record as SQLite's apply would (its bytes as they are: text is never
    /// re-encoded); declines for an undefined field.
    private func bind(_ bytes: UnsafeRawBufferPointer, _ field: Range<Int>, _ statement: OpaquePointer, _ index: Int32) throws {
        guard let base = bytes.baseAddress else { throw Declined() }
        var code: Int32
        switch bytes[field.lowerBound] {
        case 1, 2:
            var bits: UInt64 = 0
            for offset in 1...8 { bits = bits << 8 | UInt64(bytes[field.lowerBound + offset]) }
            code =
                bytes[field.lowerBound] == 1
                ? sqlite3_bind_int64(statement, index, Int64(bitPattern: bits))
                : sqlite3_bind_double(statement, index, Double(bitPattern: bits))
        case let type where type == 3 || type == 4:
            // The length's varint, skipped: the field's range already ends where its bytes do.
            var source = ChangesetFormat.BufferSource(bytes)
            source.offset = field.lowerBound + 1
            guard (try? ChangesetFormat.varint(&source)) != nil else { throw Declined() }
            let start = source.offset
            let count = field.upperBound - start
            guard count >= 0, count <= Int(Int32.max) else { throw Declined() }
            let pointer = base + start
            code =
                type == 3
                ? sqlite3_bind_text(statement, index, pointer.assumingMemoryBound(to: CChar.self), Int32(count), nil)
                : sqlite3_bind_blob(statement, index, pointer, Int32(count), nil)
        case 5:
            code = sqlite3_bind_null(statement, index)
        default:
            throw Declined()
        }
        guard code == SQLITE_OK else { throw Declined() }
    }
}
