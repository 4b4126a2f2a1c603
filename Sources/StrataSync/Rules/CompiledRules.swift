// A space's rules checked against its tables (every predicate compiled by SQLite on the space's
// definitions), kept by the hub per space and rules version.
import Foundation
import Strata

/// Rules checked against a space's schema: each name resolved, each statement compiled.
struct CompiledRules: Sendable {
    struct Bucket: Sendable {
        let name: String
        let parameters: RuleText?
        /// The parameter query's result columns (lower-cased), which `bucket.*` names.
        let columns: [String]
        /// Each table's predicate, by lower-cased table name.
        let data: [String: RuleText]
        /// The kind of each parameters column its query tells (lower-cased).
        var columnKinds: [String: RuleOperandKind] = [:]
        /// What each table's predicate pins (lower-cased table names; absent: nothing), which
        /// files log entries per bucket instance (``LogRoutes``).
        var routes: [String: LogRoute] = [:]
    }

    let buckets: [Bucket]
    /// Each table's write rule, by lower-cased table name.
    let writes: [String: RuleText]
    /// The rules version these were compiled from.
    let version: Int64
    /// Each table the rules name, as the space spells it, by lower-cased name.
    var tableNames: [String: String] = [:]
    /// The `auth.*` claims the data rules read (lower-cased, `user` left out: a view is recorded
    /// per user). A change of one changes the view itself, as a membership change does, so a view
    /// is recorded with their values.
    var dataClaims: [String] = []
    /// Each table's data rules' other reads (lower-cased): the tables their subqueries name, the
    /// rule's own table included when a subquery reads it. A change to one of them moves rows the
    /// log of the rule's own table does not show, so a pull after one sends a snapshot.
    var dataDependencies: [String: Set<String>] = [:]
    /// The tables a bucket's rule pins a column of (``LogRoutes``), by lower-cased name.
    var pinnedTables: [String: PinnedTable] = [:]

    /// The bucket instances an identity has.
    struct Instance: Hashable, Sendable, Codable, Comparable {
        var bucket: String
        var values: [SyncValue]

        /// A total order for SQL that repeats itself (no meaning beyond that): by bucket, then
        /// each value by storage class and content, without building text for them.
        static func < (left: Instance, right: Instance) -> Bool {
            if left.bucket != right.bucket { return left.bucket < right.bucket }
            for (one, other) in zip(left.values, right.values) {
                if let ordered = Self.order(one, other) { return ordered }
            }
            return left.values.count < right.values.count
        }

        /// Whether `one` sorts before `other`, nil when they are equal.
        private static func order(_ one: SyncValue, _ other: SyncValue) -> Bool? {
            func rank(_ value: SyncValue) -> Int {
                switch value {
                case .null: 0
                case .integer: 1
                case .real: 2
                case .text: 3
                case .blob: 4
                }
            }
            switch (one, other) {
            case (.integer(let a), .integer(let b)): return a == b ? nil : a < b
            case (.real(let a), .real(let b)): return a.bitPattern == b.bitPattern ? nil : (a < b || (a == b && a.bitPattern < b.bitPattern))
            case (.text(let a), .text(let b)): return a.utf8.elementsEqual(b.utf8) ? nil : a.utf8.lexicographicallyPrecedes(b.utf8)
            case (.blob(let a), .blob(let b)): return a == b ? nil : a.lexicographicallyPrecedes(b)
            case (.null, .null): return nil
            default: return rank(one) < rank(other)
            }
        }
    }

    /// Every rule as a statement of `dialect` that reads no row, each reference bound to NULL, with
    /// the place that names the rule: a store that reads SQL otherwise than SQLite (types,
    /// operators) plans each one to refuse a rule it would read differently.
    package func probes(_ dialect: RuleDialect) -> [RuleProbe] {
        var probes: [RuleProbe] = []
        for bucket in buckets {
            if let parameters = bucket.parameters {
                var arguments: [BindingValue] = []
                let sql = parameters.render(dialect, identity: nil, bucket: [:], into: &arguments)
                probes.append(
                    RuleProbe(place: "bucket \(bucket.name), parameters", statement: "SELECT * FROM (" + sql + ") AS \"probe\" LIMIT 0", arguments: arguments))
            }
            for (table, predicate) in bucket.data.sorted(by: { $0.key < $1.key }) {
                var arguments: [BindingValue] = []
                let sql = predicate.render(dialect, identity: nil, bucket: [:], bucketKinds: bucket.columnKinds, into: &arguments)
                probes.append(
                    RuleProbe(
                        place: "bucket \(bucket.name), data of \(table)",
                        statement: "SELECT 1 FROM " + quoteIdentifier(tableNames[table] ?? table) + " WHERE (" + sql + ") LIMIT 0",
                        arguments: arguments))
            }
        }
        for (table, rule) in writes.sorted(by: { $0.key < $1.key }) {
            var arguments: [BindingValue] = []
            let sql = rule.render(dialect, identity: nil, bucket: [:], into: &arguments)
            probes.append(
                RuleProbe(
                    place: "write rule of \(table)",
                    statement: "SELECT 1 FROM " + quoteIdentifier(tableNames[table] ?? table) + " WHERE NOT coalesce((" + sql + "), FALSE) LIMIT 0",
                    arguments: arguments))
        }
        return probes
    }

    /// Checks `rules` against the tables in `schema` (a SQLite connection holding the space's
    /// definitions; nothing is written to it).
    /// - Throws: ``SyncError/invalidRules(_:)`` naming the rule at fault.
    static func compile(_ rules: SyncRules, version: Int64, schema: Connection) throws -> CompiledRules {
        var names = RuleNames()
        var tables: [String: String] = [:]
        var tableList: [String] = []
        for entry in try schema.schemaReader.entries() where entry.type == "table" {
            let lowered = entry.name.lowercased()
            guard !lowered.hasPrefix("sqlite_"), !SyncBookkeeping.isBookkeeping(entry.name) else { continue }
            tables[lowered] = entry.name
            tableList.append(entry.name)
            names.add(entry.name)
            for column in try schema.schemaReader.columns(ofTable: entry.name) { names.add(column.name) }
        }
        if let clash = names.tableClash(among: tableList) {
            throw SyncError.invalidRules(
                "the space's tables " + clash.map { quoteIdentifier($0) }.joined(separator: " and ")
                    + " differ only by Unicode normalization or the case of non-ASCII letters; rules name tables by a key that cannot tell them apart (rename one)"
            )
        }
        // Each column's kind, by its quoted spelling as rules render it, per table and overall.
        var kindsByTable: [String: [String: RuleOperandKind]] = [:]
        var kindsByName: [String: Set<RuleOperandKind>] = [:]
        for (lowered, table) in tables {
            for column in try schema.schemaReader.columns(ofTable: table) {
                let quoted = quoteIdentifier(names[column.name] ?? column.name)
                let kind = RuleOperandKind(DeclaredTypeAffinity(declaredType: column.declaredType))
                kindsByTable[quoteIdentifier(names[lowered] ?? table), default: [:]][quoted] = kind
                kindsByName[quoted, default: []].insert(kind)
            }
        }
        // Columns declared with another collation than BINARY: SQLite compares them its way
        // (`COLLATE NOCASE` gives alice the rows of ALICE), PostgreSQL exactly.
        var collated: [String: String] = [:]
        for (_, table) in tables {
            for column in try schema.schemaReader.columns(ofTable: table) {
                guard let collation = schema.schemaReader.declaredCollation(ofTable: table, column: column.name),
                    collation.uppercased() != "BINARY"
                else { continue }
                collated[quoteIdentifier(names[column.name] ?? column.name)] = "\(column.name) is declared COLLATE \(collation) in \(table)"
            }
        }
        let quotedTableNames = Set(tables.keys.map { quoteIdentifier(names[$0] ?? $0) })
        // A view hides the tables it reads from the hub, which then could not follow them.
        let quotedViews = Set(
            try schema.schemaReader.entries().filter { $0.type == "view" && !names.knows($0.name) }.map { quoteIdentifier($0.name) })
        func refuseViews(_ rule: RuleText, _ place: String) throws {
            for piece in rule.pieces {
                if case .verbatim(let text) = piece, quotedViews.contains(text) {
                    throw SyncError.invalidRules("\(place): \(text) is a view; rules read tables (name the tables the view reads)")
                }
            }
        }
        func columnKind(_ table: String?, _ name: String) -> RuleOperandKind? {
            if let table, let kinds = kindsByTable[table] { return kinds[name] }
            guard let kinds = kindsByName[name], kinds.count == 1 else { return nil }
            return kinds.first
        }
        func checkComparisons(_ rule: RuleText, _ place: String, ownTable: String? = nil, bucketKinds: [String: RuleOperandKind] = [:]) throws {
            try refuseViews(rule, place)
            for piece in rule.pieces {
                if case .verbatim(let text) = piece, let why = collated[text] {
                    throw SyncError.invalidRules(
                        "\(place): \(why): SQLite compares it that way and PostgreSQL byte for byte, so the stores would give different rows; rules read columns of the default collation (BINARY)"
                    )
                }
            }
            try rule.checkComparisons(
                place: place, ownTable: ownTable.map { quoteIdentifier(names[$0] ?? $0) },
                isTable: { quotedTableNames.contains($0) }, bucketKinds: bucketKinds, column: columnKind)
        }
        /// Refuses a data rule that reads a generated column of its own table: a pull tests a
        /// row's earlier values, and a changeset carries none for generated columns.
        func refuseGenerated(_ rule: RuleText, table: String, _ place: String) throws {
            let generated = try schema.schemaReader.columns(ofTable: table).filter { $0.hidden != 0 }
            for column in generated where rule.pieces.contains(.verbatim(quoteIdentifier(names[column.name] ?? column.name))) {
                throw SyncError.invalidRules(
                    "\(place): \(column.name) is a generated column; data rules read stored columns (write the expression over them)")
            }
        }
        func table(_ name: String, _ place: String) throws -> String {
            guard let table = tables[name.lowercased()] else {
                throw SyncError.invalidRules("\(place): the space has no table \(name)")
            }
            return table
        }
        func compiles(_ sql: String, _ place: String) throws -> Statement {
            do {
                // Every name is quoted: with double-quoted strings on, one that names no column
                // would compile as a string.
                return try schema.withoutDoubleQuotedStrings { try schema.prepare(sql) }
            } catch let error as SQLiteError {
                // SQLite's words ("no such column: x"), not the error's dump.
                throw SyncError.invalidRules("\(place): \(error.message)")
            } catch {
                throw SyncError.invalidRules("\(place): \(error)")
            }
        }
        var seen: Set<String> = []
        var buckets: [Bucket] = []
        for bucket in rules.buckets {
            let place = "bucket \(bucket.name)"
            guard !bucket.name.isEmpty else { throw SyncError.invalidRules("a bucket has no name") }
            guard seen.insert(bucket.name.lowercased()).inserted else { throw SyncError.invalidRules("two buckets are named \(bucket.name)") }
            var columns: [String] = []
            var parameters: RuleText?
            var bucketKinds: [String: RuleOperandKind] = [:]
            if let text = bucket.parameters {
                let parsed = try RuleText(text, where: "\(place), parameters", names: names)
                try checkComparisons(parsed, "\(place), parameters")
                guard parsed.startsWithSelect else { throw SyncError.invalidRules("\(place), parameters: not a SELECT") }
                guard parsed.bucketNames.isEmpty else { throw SyncError.invalidRules("\(place), parameters: bucket.* is what it defines") }
                var arguments: [BindingValue] = []
                let statement = try compiles(parsed.render(.sqlite, identity: nil, bucket: [:], into: &arguments), "\(place), parameters")
                guard statement.isReadOnly else { throw SyncError.invalidRules("\(place), parameters: not a SELECT") }
                columns = statement.columnNames.map { $0.lowercased() }
                guard Set(columns).count == columns.count else {
                    throw SyncError.invalidRules("\(place), parameters: two result columns share a name (name them with AS)")
                }
                parameters = parsed
                // What the text says outright, then text and conditions PostgreSQL's typing of the
                // rest finds (a parenthesised claim, a subquery's TEXT column, `n = 1 AS x`): met
                // with a numeric column unchecked they failed every pull there (SQLSTATE 22P02).
                // A computed number stays of unknown kind, compared as the table compares it.
                let inferred = parsed.inferredResultKinds(column: columnKind).filter { $0.value == .text || $0.value == .boolean }
                bucketKinds = parsed.resultKinds(column: columnKind).merging(inferred) { stated, _ in stated }
            }
            guard !bucket.data.isEmpty else { throw SyncError.invalidRules("\(place): data names no table") }
            var data: [String: RuleText] = [:]
            for (name, predicate) in bucket.data.sorted(by: { $0.key < $1.key }) {
                let where_ = "\(place), data of \(name)"
                let table = try table(name, where_)
                guard data[table.lowercased()] == nil else { throw SyncError.invalidRules("\(where_): the table is named twice") }
                let parsed = try RuleText(predicate, where: where_, names: names)
                try checkComparisons(parsed, where_, ownTable: table, bucketKinds: bucketKinds)
                try refuseGenerated(parsed, table: table, where_)
                for used in parsed.bucketNames where !columns.contains(used) {
                    throw SyncError.invalidRules(
                        "\(where_): bucket.\(used) is not a column of the bucket's parameters"
                            + (columns.isEmpty ? " (it has none)" : " (\(columns.joined(separator: ", ")))"))
                }
                var arguments: [BindingValue] = []
                _ = try compiles(
                    "SELECT 1 FROM " + quoteIdentifier(table) + " WHERE ("
                        + parsed.render(.sqlite, identity: nil, bucket: [:], into: &arguments) + ")", where_)
                data[table.lowercased()] = parsed
            }
            var routes: [String: LogRoute] = [:]
            for (lowered, predicate) in data {
                guard let table = tables[lowered] else { continue }
                var quoted: [String: String] = [:]
                for column in try schema.schemaReader.columns(ofTable: table) where column.hidden == 0 {
                    quoted[quoteIdentifier(names[column.name] ?? column.name)] = column.name
                }
                routes[lowered] = predicate.route(quotedTable: quoteIdentifier(names[lowered] ?? table), columns: quoted, bucketColumns: columns)
            }
            buckets.append(
                Bucket(name: bucket.name, parameters: parameters, columns: columns, data: data, columnKinds: bucketKinds, routes: routes))
        }
        var writes: [String: RuleText] = [:]
        for (name, predicate) in rules.writes.sorted(by: { $0.key < $1.key }) {
            let place = "write rule of \(name)"
            let table = try table(name, place)
            guard writes[table.lowercased()] == nil else { throw SyncError.invalidRules("\(place): the table is named twice") }
            let parsed = try RuleText(predicate, where: place, names: names)
            try checkComparisons(parsed, place, ownTable: table)
            guard parsed.bucketNames.isEmpty else { throw SyncError.invalidRules("\(place): bucket.* is for data rules") }
            var arguments: [BindingValue] = []
            _ = try compiles(
                "SELECT 1 FROM " + quoteIdentifier(table) + " WHERE ("
                    + parsed.render(.sqlite, identity: nil, bucket: [:], into: &arguments) + ")", place)
            writes[table.lowercased()] = parsed
        }
        var named: [String: String] = [:]
        for key in Set(buckets.flatMap(\.data.keys)).union(writes.keys) { named[key] = tables[key] }
        var compiled = CompiledRules(buckets: buckets, writes: writes, version: version, tableNames: named)
        // A subquery's reads: the tables named after FROM or JOIN (`IN t` without parentheses
        // and views are refused, so nothing else reads a table).
        let quotedTables = Dictionary(tables.map { (quoteIdentifier(names[$0.key] ?? $0.value), $0.key) }, uniquingKeysWith: { first, _ in first })
        var claims: Set<String> = []
        for bucket in buckets {
            for (table, predicate) in bucket.data {
                for piece in predicate.pieces {
                    switch piece {
                    case .auth(let name) where name.lowercased() != "user", .authList(let name): claims.insert(name.lowercased())
                    default: break
                    }
                }
                for read in predicate.tablesRead {
                    if let lowered = quotedTables[read] { compiled.dataDependencies[table, default: []].insert(lowered) }
                }
            }
        }
        compiled.dataClaims = claims.sorted()
        compiled.pinnedTables = try pinnedTables(buckets, names: tables, schema: schema)
        return compiled
    }
}
