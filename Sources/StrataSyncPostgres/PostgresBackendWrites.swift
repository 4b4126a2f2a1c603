// Writes a backend makes with plain SQL on a space's PostgreSQL tables: triggers note each
// changed row (its key, and its values before), unless the hub itself is applying an entry; the
// hub turns what they noted into one log entry, pulled by every replica like any push.
#if Hub
import Foundation
import PostgresNIO
import Strata
import StrataSync

/// The name the log gives entries made of a backend's writes.
let backendReplicaID = "_postgres"

extension PostgresHubStorage {
    /// The statements that create the capture table and each table's trigger.
    static func captureStatements(space: String, tables: [PostgresTable]) -> [String] {
        let noted = quotePostgresIdentifier(space) + "." + quotePostgresIdentifier("_strata_sync_backend")
        return [
            """
            CREATE TABLE \(noted) (id bigserial PRIMARY KEY, "table" text NOT NULL, key jsonb NOT NULL, old jsonb)
            """
        ] + triggerStatements(space: space, tables: tables)
    }

    /// Each table's capture function and trigger (the function lists every column).
    static func triggerStatements(space: String, tables: [PostgresTable]) -> [String] {
        let schema = quotePostgresIdentifier(space)
        let noted = schema + "." + quotePostgresIdentifier("_strata_sync_backend")
        var statements: [String] = []
        for (index, table) in tables.enumerated() {
            func array(_ row: String, _ columns: [String]) -> String {
                "jsonb_build_array(" + columns.map { row + "." + quotePostgresIdentifier($0) + "::text" }.joined(separator: ", ") + ")"
            }
            let keys = table.keyColumns, all = table.columns.map(\.name)
            let keyChanged = keys.map { "OLD.\(quotePostgresIdentifier($0)) IS DISTINCT FROM NEW.\(quotePostgresIdentifier($0))" }
                .joined(separator: " OR ")
            let function = schema + "." + quotePostgresIdentifier("_strata_sync_capture_\(index)")
            var body = """
                BEGIN
                  IF coalesce(current_setting('strata.applying', true), '') = 'on' THEN RETURN NULL; END IF;
                  IF TG_OP = 'INSERT' THEN
                    INSERT INTO \(noted) ("table", key, old) VALUES (TG_TABLE_NAME, \(array("NEW", keys)), NULL);
                  ELSE
                    INSERT INTO \(noted) ("table", key, old) VALUES (TG_TABLE_NAME, \(array("OLD", keys)), \(array("OLD", all)));
                    IF TG_OP = 'UPDATE' AND (\(keyChanged)) THEN
                      INSERT INTO \(noted) ("table", key, old) VALUES (TG_TABLE_NAME, \(array("NEW", keys)), NULL);
                    END IF;
                  END IF;
                  PERFORM pg_notify('\(notifyChannel)', '-1 ' || TG_TABLE_SCHEMA);
                  RETURN NULL;
                END
                """
            // The body is dollar-quoted with a tag no identifier in it contains.
            var tag = "$strata$"
            var counter = 0
            while body.contains(tag) { counter += 1; tag = "$strata\(counter)$" }
            body = tag + "\n" + body + "\n" + tag
            statements.append("CREATE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql AS \(body)")
            statements.append(
                """
                CREATE TRIGGER \(quotePostgresIdentifier("_strata_sync_capture")) AFTER INSERT OR UPDATE OR DELETE ON \
                \(schema).\(quotePostgresIdentifier(table.name)) FOR EACH ROW EXECUTE FUNCTION \(function)()
                """)
        }
        return statements
    }
}

extension PostgresColumnType {
    /// A value from PostgreSQL's text form of it (what `::text` gives).
    func value(fromText text: String?) throws -> BindingValue {
        guard let text else { return .null }
        switch self {
        case .bigint:
            guard let integer = Int64(text) else { throw SyncError.refused("a bigint reads as \(text.debugDescription)") }
            return .integer(integer)
        case .double:
            switch text {
            case "Infinity": return .real(.infinity)
            case "-Infinity": return .real(-.infinity)
            case "NaN": return .null
            default:
                guard let real = Double(text) else { throw SyncError.refused("a double reads as \(text.debugDescription)") }
                return .real(real)
            }
        case .text:
            return .text(text)
        case .bytea:
            let hex = Array(text.utf8.dropFirst(2))
            guard text.hasPrefix("\\x"), hex.count % 2 == 0 else { throw SyncError.refused("a bytea reads as \(text.debugDescription)") }
            func nibble(_ byte: UInt8) -> UInt8? {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
                default: return nil
                }
            }
            var data = Data(capacity: hex.count / 2)
            var index = 0
            while index < hex.count {
                guard let high = nibble(hex[index]), let low = nibble(hex[index + 1]) else {
                    throw SyncError.refused("a bytea reads as \(text.debugDescription)")
                }
                data.append(high << 4 | low)
                index += 2
            }
            return .blob(data)
        case .numeric:
            return PostgresCell.numericValue(text: text)
        }
    }
}

extension PostgresSpaceStorage {
    /// Turns the backend's writes the triggers noted into one log entry (the rows' values before
    /// the first noted change, and as they are now), and forgets them; nothing when none.
    /// Whether a backend's writes wait to be logged, and the schema version PostgreSQL records
    /// for the space (1 before any migration): one round trip at the start of each request.
    func look() throws -> (noted: Bool, schemaVersion: Int) {
        let row = try link.query(
            """
            SELECT EXISTS (SELECT 1 FROM \(bookkeeping("backend"))), (SELECT value FROM \(bookkeeping("meta")) WHERE key = 'schema_version')
            """
        ).first
        let (noted, version) = try row?.decode((Bool, Int64?).self) ?? (false, nil)
        return (noted, Int(version ?? 1))
    }

    func logBackendWrites() throws {
        try write { try logNotedWrites() }
    }

    /// Logs what the capture triggers noted, as one entry (inside ``write(_:)``).
    func logNotedWrites() throws {
        let noted = bookkeeping("backend")
        do {
            let rows = try link.query("SELECT id, \"table\", key::text, old::text FROM \(noted) ORDER BY id FOR UPDATE")
            guard !rows.isEmpty else { return }
            var last: Int64 = 0
            var readIDs: [Int64] = []
            // Per row: the values before the first change noted (nil: it was not there).
            var order: [(PostgresTable, String, [BindingValue])] = []
            var before: [String: [BindingValue]?] = [:]
            for row in rows {
                let (id, name, keyText, oldText) = try row.decode((Int64, String, String, String?).self)
                last = max(last, id)
                readIDs.append(id)
                let table = try table(name)
                let keyTexts = try JSONDecoder().decode([String?].self, from: Data(keyText.utf8))
                let key = try zip(keyTexts, table.keyPositions).map { text, position in try table.columns[position].type.value(fromText: text) }
                let id2 = String(decoding: IdentifierSet.key(table.name), as: UTF8.self) + "\u{1}" + Self.identity(key)
                if before[id2] != nil { continue }
                var old: [BindingValue]?
                if let oldText {
                    let texts = try JSONDecoder().decode([String?].self, from: Data(oldText.utf8))
                    old = try zip(texts, table.columns).map { text, column in try column.type.value(fromText: text) }
                }
                before[id2] = .some(old)
                order.append((table, id2, key))
            }
            let scratch = space.definitions
            try scratch.execute("PRAGMA foreign_keys = OFF")
            try scratch.execute("BEGIN")
            defer { try? scratch.execute("ROLLBACK") }
            for (table, id, _) in order {
                if let values = before[id] ?? nil { try scratchInsert(table, values, scratch) }
            }
            let session = try scratch.recordChanges(tables: space.tables.map(\.name))
            defer { session.close() }
            for (table, _, key) in order {
                let now = try fetch(table, key: key, forUpdate: true)
                if let now {
                    let others = table.columns.indices.filter { table.columns[$0].keyIndex == 0 }.map { quoteIdentifier(table.columns[$0].name) }
                    let sql =
                        "INSERT INTO " + quoteIdentifier(table.name) + " (" + table.columns.map { quoteIdentifier($0.name) }.joined(separator: ", ")
                        + ") VALUES (" + table.columns.map { _ in "?" }.joined(separator: ", ") + ") ON CONFLICT ("
                        + table.keyColumns.map(quoteIdentifier).joined(separator: ", ") + ") DO "
                        + (others.isEmpty ? "NOTHING" : "UPDATE SET " + others.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
                    try scratch.run(literal: SQLFragment(sql: sql, arguments: now))
                } else {
                    let condition = table.keyColumns.map { quoteIdentifier($0) + " IS ?" }.joined(separator: " AND ")
                    try scratch.run(literal: SQLFragment(sql: "DELETE FROM " + quoteIdentifier(table.name) + " WHERE " + condition, arguments: key))
                }
            }
            let made = try session.changeset()
            if !made.isEmpty {
                _ = try HubApply.appendToLog(self, replica: backendReplicaID, sequence: last, changeset: made.data)
            }
            // Exactly the notes read: a backend transaction that began earlier may commit notes
            // with lower ids meanwhile, and those must wait for the next look, not vanish.
            try link.query("DELETE FROM \(noted) WHERE id = ANY($1)", [readIDs])
        }
    }

    func scratchInsert(_ table: PostgresTable, _ values: [BindingValue], _ scratch: Connection) throws {
        try scratch.run(
            literal: SQLFragment(
                sql: "INSERT INTO " + quoteIdentifier(table.name) + " (" + table.columns.map { quoteIdentifier($0.name) }.joined(separator: ", ")
                    + ") VALUES (" + table.columns.map { _ in "?" }.joined(separator: ", ") + ")",
                arguments: values))
    }
}
#endif
