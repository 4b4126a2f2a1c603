// One identity's view of a space under compiled rules, over any store: its bucket instances,
// each table's predicate for a set of them, and rows tested against it.
import Foundation
import Strata

/// One identity's view of a space under compiled rules, over a store: its bucket instances, and
/// each table's predicate for a set of them.
struct SyncView {
    let rules: CompiledRules
    let identity: SyncIdentity
    let storage: any SyncSpaceStorage

    var dialect: RuleDialect { storage.ruleDialect }

    /// The instances the identity has now.
    func instances() throws -> Set<CompiledRules.Instance> {
        var result: Set<CompiledRules.Instance> = []
        for bucket in rules.buckets {
            guard let parameters = bucket.parameters else {
                result.insert(.init(bucket: bucket.name, values: []))
                continue
            }
            var arguments: [BindingValue] = []
            let sql = parameters.render(dialect, identity: identity, bucket: [:], into: &arguments)
            for row in try storage.ruleRows(sql, arguments) {
                result.insert(.init(bucket: bucket.name, values: row.map { SyncValue($0) }))
            }
        }
        return result
    }

    /// `table`'s predicate for `instances` (any of them), its values appended to `arguments`; nil
    /// when none of them covers the table. The OR is a balanced tree: SQLite limits an
    /// expression's depth, and a user may have thousands of instances.
    func predicate(_ table: String, _ instances: some Collection<CompiledRules.Instance>, into arguments: inout [BindingValue]) -> String? {
        let buckets = Dictionary(rules.buckets.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var terms: [String] = []
        for instance in instances.sorted() {
            guard let bucket = buckets[instance.bucket], let data = bucket.data[table.lowercased()] else { continue }
            var values: [String: BindingValue] = [:]
            for (column, value) in zip(bucket.columns, instance.values) { values[column] = value.binding }
            terms.append("(" + data.render(dialect, identity: identity, bucket: values, into: &arguments) + ")")
        }
        return terms.isEmpty ? nil : Self.balancedOr(terms[...])
    }

    static func balancedOr(_ terms: ArraySlice<String>) -> String {
        if terms.count == 1, let only = terms.first { return only }
        let middle = terms.startIndex + terms.count / 2
        return "(" + balancedOr(terms[..<middle]) + " OR " + balancedOr(terms[middle...]) + ")"
    }

    /// Which of `rows` (each `columns`' values) satisfy `predicate`, evaluated on the values
    /// themselves (a row as it was at an earlier version, not as the table holds it now): the
    /// row's table name stands for the values inside the statement.
    func matching(
        _ table: String, columns: [String], rows: [[BindingValue]],
        predicate: (inout [BindingValue]) -> String?
    ) throws -> Set<Int> {
        guard !rows.isEmpty else { return [] }
        var matched: Set<Int> = []
        let perRow = columns.count + 1
        let chunk = max(1, 20_000 / perRow)
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + chunk)
            var arguments: [BindingValue] = []
            var tuples: [String] = []
            for index in start..<end {
                arguments.append(.integer(Int64(index)))
                var placeholders = [dialect.integerPlaceholder(arguments.count)]
                for column in 0..<columns.count {
                    arguments.append(column < rows[index].count ? rows[index][column] : .null)
                    placeholders.append(try storage.ruleValue(arguments.count, table: table, column: columns[column]))
                }
                tuples.append("(" + placeholders.joined(separator: ", ") + ")")
            }
            guard let condition = predicate(&arguments) else { return [] }
            let rowColumn = quoteIdentifier(SyncBookkeeping.prefix + "row")
            let sql =
                "WITH " + quoteIdentifier(table) + "(" + ([rowColumn] + columns.map(quoteIdentifier)).joined(separator: ", ")
                + ") AS (VALUES " + tuples.joined(separator: ", ") + ") SELECT " + rowColumn + " FROM " + quoteIdentifier(table)
                + " WHERE " + condition
            for row in try storage.ruleRows(sql, arguments) {
                if case .integer(let index)? = row.first { matched.insert(Int(index)) }
            }
            start = end
        }
        return matched
    }

    /// The rows of `table` (every column) that satisfy `condition`, as the table holds them now.
    func currentRows(_ table: String, columns: [String], where condition: String, _ arguments: [BindingValue]) throws -> [[BindingValue]] {
        try storage.ruleTableRows(table, columns: columns, where: condition, arguments)
    }

    /// SQL matching the rows of `keys` (each the key columns' values), its values appended.
    func keyCondition(_ keyColumns: [String], _ keys: [[BindingValue]], into arguments: inout [BindingValue]) -> String {
        var terms: [String] = []
        for key in keys {
            var parts: [String] = []
            for (column, value) in zip(keyColumns, key) {
                arguments.append(value)
                parts.append(quoteIdentifier(column) + " = " + dialect.placeholder(arguments.count))
            }
            terms.append("(" + parts.joined(separator: " AND ") + ")")
        }
        return terms.isEmpty ? "FALSE" : Self.balancedOr(terms[...])
    }

    static func encodeInstances(_ instances: Set<CompiledRules.Instance>) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(instances.sorted())
    }

    static func decodeInstances(_ data: Data) throws -> Set<CompiledRules.Instance> {
        Set(try JSONDecoder().decode([CompiledRules.Instance].self, from: data))
    }
}
