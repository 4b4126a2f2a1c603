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
    /// The routes a logged entry is filed under: every table and row it changes, and the value
    /// before and after of each column a bucket's rule pins. A column a change leaves undefined
    /// (an UPDATE of other columns) is read from the table, which the change left as it was.
    func logRoutes(of changeset: Data, storage: any SyncSpaceStorage) throws -> [LogRoutes.Filed] {
        var pinned: [String: Set<String>] = [:]
        for bucket in buckets {
            for (table, route) in bucket.routes { pinned[table, default: []].insert(route.column) }
        }
        var routes: Set<LogRoutes.Filed> = []
        var columnsByTable: [String: [String]] = [:]
        try Changeset(data: changeset).forEachChange { change in
            let table = change.table.lowercased()
            let row = LogRoutes.row(table, key: change.primaryKey)
            routes.insert(LogRoutes.Filed(route: LogRoutes.table(table), row: Data()))
            routes.insert(LogRoutes.Filed(route: row, row: Data()))
            guard let wanted = pinned[table], !wanted.isEmpty else { return }
            let columns: [String]
            if let known = columnsByTable[table] {
                columns = known
            } else {
                columns = try storage.definitions.schemaReader.columns(ofTable: change.table).filter { $0.hidden == 0 }.map(\.name)
                columnsByTable[table] = columns
            }
            for (index, column) in columns.enumerated() where wanted.contains(column.lowercased()) {
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
                    } else if let current = try currentValue(change.table, column: column, key: change.primaryKey, storage: storage) {
                        complete = true
                        values = [current]
                    } else {
                        complete = false
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

    /// `column` of the row of `table` with `key`, as the table holds it (nil: no such row).
    private func currentValue(_ table: String, column: String, key: [BindingValue], storage: any SyncSpaceStorage) throws -> BindingValue? {
        let keyColumns = try SchemaFingerprint.keyColumns(of: table, in: storage.definitions)
        guard keyColumns.count == key.count else { return nil }
        let condition = keyColumns.enumerated().map { quoteIdentifier($0.element) + " = " + storage.ruleDialect.placeholder($0.offset + 1) }
        return try storage.ruleTableRows(table, columns: [column], where: condition.joined(separator: " AND "), key).first?.first
    }
}
