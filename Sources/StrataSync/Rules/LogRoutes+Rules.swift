// Which routes of the log (``LogRoutes``) a space's rules file entries under: what each data
// rule pins, read from its text, and the routes of a logged changeset under them.
import Foundation
import Strata

/// What one bucket's data rule for a table pins: a column equal to a bucket parameter or a claim.
struct LogRoute: Sendable, Equatable {
    enum Reference: Sendable, Equatable {
        /// A parameter of the bucket (lower-cased), at `index` in the instance's values.
        case bucket(index: Int)
        /// A string claim (`auth.user` included).
        case claim(String)
    }
    /// The column, lower-cased.
    let column: String
    let reference: Reference
}

extension RuleText {
    /// The first top-level conjunct of this data rule of the form `column = bucket.p` or
    /// `column = auth.claim` (either side, the column bare or qualified by `quotedTable`), nil
    /// when there is none (an `OR` at the top level, or no such conjunct).
    /// `columns` maps each of the table's columns, quoted as rules render them, to its name.
    func route(quotedTable: String, columns: [String: String], bucketColumns: [String]) -> LogRoute? {
        var conjuncts: [[Piece]] = [[]]
        var depth = 0
        for piece in pieces {
            if case .verbatim(let text) = piece {
                if text == "(" { depth += 1 }
                if text == ")" { depth -= 1 }
                if depth == 0, text == "OR" { return nil }
                if depth == 0, text == "AND" {
                    conjuncts.append([])
                    continue
                }
            }
            conjuncts[conjuncts.count - 1].append(piece)
        }
        func column(_ pieces: ArraySlice<Piece>) -> String? {
            switch pieces.count {
            case 1:
                guard case .verbatim(let name)? = pieces.first else { return nil }
                return columns[name]
            case 3:
                let parts = Array(pieces)
                guard parts[0] == .verbatim(quotedTable), parts[1] == .verbatim("."), case .verbatim(let name) = parts[2] else { return nil }
                return columns[name]
            default: return nil
            }
        }
        func reference(_ pieces: ArraySlice<Piece>) -> LogRoute.Reference? {
            guard pieces.count == 1, let piece = pieces.first else { return nil }
            switch piece {
            case .bucket(let name): return bucketColumns.firstIndex(of: name.lowercased()).map { .bucket(index: $0) }
            case .auth(let name): return .claim(name)
            default: return nil
            }
        }
        for conjunct in conjuncts {
            guard let equals = conjunct.firstIndex(of: .verbatim("=")) else { continue }
            let left = conjunct[..<equals]
            let right = conjunct[(equals + 1)...]
            if let name = column(left), let reference = reference(right) { return LogRoute(column: name.lowercased(), reference: reference) }
            if let name = column(right), let reference = reference(left) { return LogRoute(column: name.lowercased(), reference: reference) }
        }
        return nil
    }
}

extension CompiledRules {
    /// A table some bucket's rule pins: its stored columns' names (a changeset's column order),
    /// the pinned ones' positions, and its key (to read a pinned value a change leaves out).
    struct PinnedTable: Sendable {
        let name: String
        let pinned: [(index: Int, column: String)]
        let keyColumns: [String]?
    }

    /// Each pinned table by lower-cased name, from the space's definitions (once, when the rules
    /// are compiled: an additive migration only appends columns).
    static func pinnedTables(_ buckets: [Bucket], names: [String: String], schema: Connection) throws -> [String: PinnedTable] {
        var wanted: [String: Set<String>] = [:]
        for bucket in buckets {
            for (table, route) in bucket.routes { wanted[table, default: []].insert(route.column) }
        }
        var tables: [String: PinnedTable] = [:]
        for (lowered, columns) in wanted {
            guard let name = names[lowered] else { continue }
            let stored = try schema.schemaReader.columns(ofTable: name).filter { $0.hidden == 0 }.map(\.name)
            let pinned = stored.enumerated().filter { columns.contains($0.element.lowercased()) }.map { (index: $0.offset, column: $0.element) }
            tables[lowered] = PinnedTable(name: name, pinned: pinned, keyColumns: try? SchemaFingerprint.keyColumns(of: name, in: schema))
        }
        return tables
    }

    /// The routes a logged entry is filed under: every table and row it changes, and the value
    /// before and after of each column a bucket's rule pins. A column a change leaves undefined
    /// (an UPDATE of other columns) is read from the table, which the change left as it was.
    func logRoutes(of changeset: Data, storage: any SyncSpaceStorage) throws -> [LogRoutes.Filed] {
        var routes: Set<LogRoutes.Filed> = []
        try Changeset(data: changeset).forEachChange { change in
            let table = change.table.lowercased()
            let row = LogRoutes.row(table, key: change.primaryKey)
            routes.insert(LogRoutes.Filed(route: LogRoutes.table(table), row: Data()))
            routes.insert(LogRoutes.Filed(route: row, row: Data()))
            guard let pinned = pinnedTables[table], !pinned.pinned.isEmpty else { return }
            var current: [BindingValue]??
            for (position, (index, column)) in pinned.pinned.enumerated() {
                let old = index < change.oldValues.count ? change.oldValues[index] : nil
                let new = index < change.newValues.count ? change.newValues[index] : nil
                var values: [BindingValue] = []
                let complete: Bool
                switch change.operation {
                case .insert:
                    complete = new != nil
                    values = [new].compactMap { $0 }
                case .delete:
                    complete = old != nil
                    values = [old].compactMap { $0 }
                case .update:
                    if let new {
                        // A patchset's UPDATE carries no old value: where the row was is unknown.
                        complete = old != nil
                        values = [old, new].compactMap { $0 }
                    } else {
                        // Every pinned column of the row read at once, the first time one is needed.
                        if current == nil { current = .some(try currentValues(pinned, key: change.primaryKey, storage: storage)) }
                        if let found = current ?? nil, position < found.count {
                            complete = true
                            values = [found[position]]
                        } else {
                            complete = false
                        }
                    }
                }
                if !complete { routes.insert(LogRoutes.Filed(route: LogRoutes.anyValue(table), row: row)) }
                for value in values {
                    for route in LogRoutes.column(table, column, value: value) { routes.insert(LogRoutes.Filed(route: route, row: row)) }
                }
            }
        }
        return routes.sorted { $0.route == $1.route ? $0.row.lexicographicallyPrecedes($1.row) : $0.route.lexicographicallyPrecedes($1.route) }
    }

    /// The pinned columns of the row of `table` with `key`, as the table holds them (nil: no
    /// such row, or a table without a key of its own).
    private func currentValues(_ table: PinnedTable, key: [BindingValue], storage: any SyncSpaceStorage) throws -> [BindingValue]? {
        guard let keyColumns = table.keyColumns, keyColumns.count == key.count else { return nil }
        let condition = keyColumns.enumerated().map { quoteIdentifier($0.element) + " = " + storage.ruleDialect.placeholder($0.offset + 1) }
        return try storage.ruleTableRows(table.name, columns: table.pinned.map(\.column), where: condition.joined(separator: " AND "), key).first
    }
}
