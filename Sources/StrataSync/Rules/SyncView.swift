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
    /// The replica's subscriptions: the instances of each bucket they name are narrowed to those
    /// one of them matches.
    var subscriptions: [SyncSubscription] = []
    /// A phase of a sync by priority (``SyncPullRequest/minimumPriority``), nil for none.
    var minimumPriority: Int?
    /// Whether a pull reads the log by its routes (off: whole, as a test compares).
    var readsLogRoutes = true

    var dialect: RuleDialect { storage.ruleDialect }

    /// The instances the identity has now.
    func instances() throws -> Set<CompiledRules.Instance> {
        var result: Set<CompiledRules.Instance> = []
        var subscribed: [String: [SyncSubscription]] = [:]
        for subscription in subscriptions { subscribed[subscription.bucket.lowercased(), default: []].append(subscription) }
        for bucket in rules.buckets {
            // A bucket a subscription names: only the instances one of them asks for.
            let asked = subscribed[bucket.name.lowercased()]
            func keep(_ values: [SyncValue]) -> Bool {
                asked.map { $0.contains { $0.matches(columns: bucket.columns, values: values) } } ?? true
            }
            guard let parameters = bucket.parameters else {
                if keep([]) { result.insert(.init(bucket: bucket.name, values: [])) }
                continue
            }
            var arguments: [BindingValue] = []
            let sql = parameters.render(dialect, identity: identity, bucket: [:], into: &arguments)
            for row in try storage.ruleRows(sql, arguments) {
                let values = row.map { SyncValue($0) }
                if keep(values) { result.insert(.init(bucket: bucket.name, values: values)) }
            }
        }
        return result
    }

    /// The instances of `all` that a subscription of at least `level` asks for.
    func instances(_ all: Set<CompiledRules.Instance>, ofPriorityAtLeast level: Int) -> Set<CompiledRules.Instance> {
        let asked = subscriptions.filter { $0.priority >= level }
        guard !asked.isEmpty else { return [] }
        let columns = Dictionary(rules.buckets.map { ($0.name.lowercased(), $0.columns) }, uniquingKeysWith: { first, _ in first })
        return all.filter { instance in
            let bucket = instance.bucket.lowercased()
            return asked.contains { $0.bucket.lowercased() == bucket && $0.matches(columns: columns[bucket] ?? [], values: instance.values) }
        }
    }

    /// The most instances one statement's OR holds: a user may have tens of thousands, and one
    /// OR of them all made SQLite's memory grow with their square. Past this, one statement per
    /// group of instances, so memory grows with the instances, not their square.
    static let instancesPerStatement = 256

    /// `table`'s predicate for `instances` (any of them) as `identity` (this view's by default)
    /// reads it, its values appended to `arguments`; nil when none of them covers the table. The
    /// OR is a balanced tree: SQLite limits an expression's depth.
    func predicate(
        _ table: String, _ instances: some Collection<CompiledRules.Instance>, identity: SyncIdentity? = nil,
        into arguments: inout [BindingValue]
    ) -> String? {
        let buckets = Dictionary(rules.buckets.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var terms: [String] = []
        // In the caller's order (``conditions(_:_:identity:)`` sorts once, for SQL that repeats).
        for instance in instances {
            guard let bucket = buckets[instance.bucket], let data = bucket.data[table.lowercased()] else { continue }
            var values: [String: BindingValue] = [:]
            for (column, value) in zip(bucket.columns, instance.values) { values[column] = value.binding }
            terms.append(
                "(" + data.render(dialect, identity: identity ?? self.identity, bucket: values, bucketKinds: bucket.columnKinds, into: &arguments) + ")")
        }
        return terms.isEmpty ? nil : Self.balancedOr(terms[...])
    }

    /// `table`'s predicate for `instances` in groups of ``instancesPerStatement``: a row is in
    /// the view when it satisfies any group's condition. Empty when no instance covers the table.
    func conditions(
        _ table: String, _ instances: some Collection<CompiledRules.Instance>, identity: SyncIdentity? = nil
    ) -> [RuleCondition] {
        let covering = instances.filter { instance in
            rules.buckets.contains { $0.name == instance.bucket && $0.data[table.lowercased()] != nil }
        }.sorted()
        var groups: [RuleCondition] = []
        var start = 0
        while start < covering.count {
            let group = Array(covering[start..<min(covering.count, start + Self.instancesPerStatement)])
            start += group.count
            groups.append { arguments in predicate(table, group, identity: identity, into: &arguments) }
        }
        return groups
    }

    static func balancedOr(_ terms: ArraySlice<String>) -> String {
        if terms.count == 1, let only = terms.first { return only }
        let middle = terms.startIndex + terms.count / 2
        return "(" + balancedOr(terms[..<middle]) + " OR " + balancedOr(terms[middle...]) + ")"
    }

    /// Which of `rows` (each `columns`' values) satisfy any of `conditions`, evaluated on the
    /// values themselves (a row as it was at an earlier version, not as the table holds it now),
    /// compared as the table compares them (its columns' types).
    func matching(_ table: String, columns: [String], rows: [[BindingValue]], conditions: [RuleCondition]) throws -> Set<Int> {
        guard !rows.isEmpty, !conditions.isEmpty else { return [] }
        return try storage.ruleMatches(table, columns: columns, rows: rows, conditions: conditions)
    }

    /// The rows of `table` (every column) that satisfy any of `conditions`, as the table holds
    /// them now, each once (a row in several instances, or several groups, is read again and
    /// kept once, by its key).
    func currentRows(_ table: String, columns: [String], keyIndexes: [Int], conditions: [RuleCondition]) throws -> [[BindingValue]] {
        var seen: Set<[SyncValue]> = []
        var rows: [[BindingValue]] = []
        for condition in conditions {
            var arguments: [BindingValue] = []
            guard let sql = condition(&arguments) else { continue }
            for values in try storage.ruleTableRows(table, columns: columns, where: sql, arguments) {
                if seen.insert(keyIndexes.map { SyncValue(values[$0]) }).inserted { rows.append(values) }
            }
        }
        return rows
    }

    /// The rows of `table` (every column) that satisfy `condition`, as the table holds it now.
    func currentRows(_ table: String, columns: [String], where condition: String, _ arguments: [BindingValue]) throws -> [[BindingValue]] {
        try storage.ruleTableRows(table, columns: columns, where: condition, arguments)
    }

    /// The claims the data rules read, as one identity has them: what a view record keeps to
    /// tell, at the next pull, that they changed.
    struct ClaimValues: Codable, Equatable {
        /// String claims (absent: NULL).
        var strings: [String: String] = [:]
        /// List claims (`IN auth.<name>`), each as the rules read it.
        var lists: [String: [String]] = [:]
    }

    /// The values of the claims the data rules read, as this identity has them.
    func dataClaimValues() -> ClaimValues {
        var values = ClaimValues()
        for name in rules.dataClaims {
            if case .text(let value) = identity.value(of: name) { values.strings[name] = value }
            let list = identity.values(of: name)
            if !list.isEmpty, list != values.strings[name].map({ [$0] }) { values.lists[name] = list }
        }
        return values
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

    /// What a view record holds: the instances, and the values of the claims the data rules read.
    private struct Recorded: Codable {
        var instances: [CompiledRules.Instance]
        var claims: [String: String]
        /// List claims; absent in records written before the rules read lists.
        var lists: [String: [String]]?
    }

    /// The token of a view (``SyncPullResponse/view``): a hash of the rules' version, the user and
    /// the record's stored bytes (its instances and claims). The user, because a record keeps only
    /// the claims the data rules read, not `auth.user`: two users' views under rules that read only
    /// the user are the same bytes, and a file that went from one to the other and back under one
    /// replica name must not match. The bytes as stored, never encoded again: hub processes whose
    /// encoders differ (another Foundation) still agree on a record's token.
    static func viewToken(rules: Int64, user: String, record instances: Data) -> String {
        var hash = FNV1a()
        hash.add(rules)
        hash.add(user.utf8)
        hash.add(0)
        hash.add(instances)
        return String(hash.value, radix: 16)
    }

    static func encodeInstances(_ instances: Set<CompiledRules.Instance>, claims: ClaimValues) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(Recorded(instances: instances.sorted(), claims: claims.strings, lists: claims.lists.isEmpty ? nil : claims.lists))
    }

    /// The instances and claims of a record; claims nil for a record written before they were
    /// kept (a bare list of instances).
    static func decodeInstances(_ data: Data) throws -> (instances: Set<CompiledRules.Instance>, claims: ClaimValues?) {
        if let recorded = try? JSONDecoder().decode(Recorded.self, from: data) {
            return (Set(recorded.instances), ClaimValues(strings: recorded.claims, lists: recorded.lists ?? [:]))
        }
        return (Set(try JSONDecoder().decode([CompiledRules.Instance].self, from: data)), nil)
    }
}
