// Write rules at the hub: each row a pushed entry touches must satisfy its table's write rule
// before the entry is applied (the old row) and after (the new row), inside the apply's
// transaction, so a refused entry leaves nothing behind.
import Foundation
import Strata

extension SyncView {
    /// Refuses the entry unless every row of `changeset` in the synced `tables` that exists now
    /// satisfies its table's write rule; `phase` names the rows in the message ("old", "new").
    /// - Throws: `EntryRefusal` with ``SyncRefusal/Reason/forbidden``, naming the table and key.
    func checkWrites(_ changeset: Data, tables: [String], phase: String) throws {
        let synced = Dictionary(tables.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var keys: [String: [[BindingValue]]] = [:]
        var order: [String] = []
        try Changeset(data: changeset).forEachChange { change in
            guard let table = synced[change.table.lowercased()] else { return }
            if keys[table] == nil { order.append(table) }
            keys[table, default: []].append(change.primaryKey)
        }
        for table in order {
            let list = keys[table] ?? []
            guard let rule = rules.writes[table.lowercased()] else {
                throw EntryRefusal(
                    reason: .forbidden, table: table, key: list.first?.map { SyncValue($0) },
                    message: "the space's rules give \(table) no write rule, so replicas may not write it")
            }
            let keyColumns = try SchemaFingerprint.keyColumns(of: table, in: storage.definitions)
            var start = 0
            while start < list.count {
                let chunk = Array(list[start..<min(list.count, start + 200)])
                start += chunk.count
                var arguments: [BindingValue] = []
                let condition = keyCondition(keyColumns, chunk, into: &arguments)
                let allowed = rule.render(dialect, identity: identity, bucket: [:], into: &arguments)
                let sql =
                    "SELECT " + keyColumns.map(quoteIdentifier).joined(separator: ", ") + " FROM " + quoteIdentifier(table)
                    + " WHERE (" + condition + ") AND NOT coalesce((" + allowed + "), FALSE) LIMIT 1"
                if let row = try storage.ruleRows(sql, arguments).first {
                    throw EntryRefusal(
                        reason: .forbidden, table: table, key: row.map { SyncValue($0) },
                        message: "the space's rules do not let \(identity.user) write this row of \(table) (its \(phase) values fail the table's write rule)")
                }
            }
        }
    }

    /// Whether the row of `table` with `key` is in this view now.
    func holds(_ table: String, key: [SyncValue], instances: Set<CompiledRules.Instance>) throws -> Bool {
        let keyColumns = try SchemaFingerprint.keyColumns(of: table, in: storage.definitions)
        for visible in conditions(table, instances) {
            var arguments: [BindingValue] = []
            let condition = keyCondition(keyColumns, [key.map(\.binding)], into: &arguments)
            guard let sql = visible(&arguments) else { continue }
            if try !storage.ruleRows("SELECT 1 FROM " + quoteIdentifier(table) + " WHERE (" + condition + ") AND " + sql, arguments).isEmpty {
                return true
            }
        }
        return false
    }
}
