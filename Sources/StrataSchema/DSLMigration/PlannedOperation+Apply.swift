import StrataKernel
import Foundation

// How each declared step runs on a database: up, and down as its derived inverse.
extension PlannedOperation {
    func applyUp(to db: Connection) throws {
        switch operation {
        case .createTable(let table):
            try db.runSingleStatement(table.createSQL)
        case .createVirtualTable(let table):
            for statement in table.createStatements { try db.execute(statement) }
        case .alterTable(let name, let changes):
            try alter(db, table: name, changes: changes)
        case .dropTable(let name):
            if let table = before.virtualTable(name) {
                for statement in table.dropStatements { try db.execute(statement) }
                return
            }
            try Self.dropTable(db, named: name)
        case .renameTable(let old, let new):
            try db.execute("ALTER TABLE \(quoteIdentifier(old)) RENAME TO \(quoteIdentifier(new))")
        case .createIndex(let index):
            try db.runSingleStatement(index.createSQL)
        case .dropIndex(let name):
            try db.execute("DROP INDEX \(quoteIdentifier(name))")
        case .renameIndex(let old, let new):
            try db.execute("DROP INDEX \(quoteIdentifier(old))")
            if let index = after.index(new) { try db.runSingleStatement(index.createSQL) }
        case .execute(let up, _):
            try up(db)
        }
    }

    /// Down: the derived inverse, run forward from the state after this step. An alteration is
    /// the one step undone in place: `unalter` rebuilds to the shape declared before it.
    func applyDown(to db: Connection) throws {
        if case .alterTable(let name, let changes) = operation {
            return try unalter(db, table: name, changes: changes)
        }
        for step in inverse { try step.applyUp(to: db) }
    }

    /// The steps that undo this one, each planned from the state after it back to the state before.
    private var inverse: [PlannedOperation] {
        let undo: [SchemaOperation]
        switch operation {
        case .createTable(let table): undo = [.dropTable(table.name)]
        case .createVirtualTable(let table): undo = [.dropTable(table.name)]
        case .alterTable: undo = []
        case .dropTable(let name):
            if let table = before.virtualTable(name) {
                undo = [.createVirtualTable(table)]
            } else if let table = before.table(name) {
                let indexes = before.indexes.filter { $0.tableName.caseInsensitiveCompare(table.name) == .orderedSame }
                undo = [.createTable(table)] + indexes.map { .createIndex($0) }
            } else {
                undo = []
            }
        case .renameTable(let old, let new): undo = [.renameTable(new, to: old)]
        case .createIndex(let index): undo = [.dropIndex(index.name)]
        case .dropIndex(let name): undo = before.index(name).map { [.createIndex($0)] } ?? []
        case .renameIndex(let old, let new): undo = [.renameIndex(new, to: old)]
        case .execute(let up, let down): undo = [.execute(up: down ?? { _ in }, down: up)]
        }
        return undo.map { PlannedOperation(operation: $0, before: after, after: before) }
    }

    /// `DROP TABLE`, refused where it would delete rows of other tables. Foreign keys are on here
    /// only inside the caller's transaction (the migration turns them off around its own), where
    /// they cannot be turned off, and the drop's implicit `DELETE` would then fire the `ON DELETE`
    /// actions of the tables that reference it. The throw rolls the migration's savepoint back.
    private static func dropTable(_ db: Connection, named name: String) throws {
        if try db.foreignKeysEnabled(), try !db.tablesReferencing(name).isEmpty {
            throw SchemaMigrationError.foreignKeysEnabledInTransaction(table: name)
        }
        try db.execute("DROP TABLE \(quoteIdentifier(name))")
    }

    /// The column renames of an alteration, in order, as (old name, new name).
    private static func renames(in changes: [TableAlteration]) -> [(old: String, new: String)] {
        changes.compactMap {
            if case .alterColumn(let name, let renameTo?, _, _, _) = $0, name != renameTo { return (old: name, new: renameTo) }
            return nil
        }
    }

    private static func renameColumn(_ db: Connection, table: String, from old: String, to new: String) throws {
        try db.execute("ALTER TABLE \(quoteIdentifier(table)) RENAME COLUMN \(quoteIdentifier(old)) TO \(quoteIdentifier(new))")
    }

    /// Up: renames with `ALTER TABLE`, plain added columns with `ALTER TABLE ADD COLUMN`, anything
    /// else by rebuilding the (renamed) table to its declared shape.
    private func alter(_ db: Connection, table: String, changes: [TableAlteration]) throws {
        guard let newTable = after.table(table) else { return }
        for rename in Self.renames(in: changes) { try Self.renameColumn(db, table: newTable.name, from: rename.old, to: rename.new) }
        if changes.allSatisfy({ $0.isRenameOnly || $0.isPlainAddColumn }) {
            for case .addColumn(let column, _) in changes {
                try db.runSingleStatement(TableDefinition.addColumnSQL(table: newTable.name, column: column.columnDefinition))
            }
            return
        }
        var added: [String: String?] = [:] // lowercased new column → initial expression
        var setValues: [String: String] = [:] // lowercased final column name → expression
        for change in changes {
            switch change {
            case .addColumn(let column, let initialExpr):
                added[column.name.lowercased()] = .some(initialExpr)
            case .alterColumn(let name, let renameTo, _, _, let setValue?):
                setValues[(renameTo ?? name).lowercased()] = setValue
            default:
                break
            }
        }
        var copying: [(column: String, expression: String)] = []
        for column in newTable.columns {
            let key = column.name.lowercased()
            if let initial = added[key] {
                if let initial { copying.append((column: column.name, expression: initial)) }
            } else {
                copying.append((column: column.name, expression: setValues[key] ?? quoteIdentifier(column.name)))
            }
        }
        // Indexes that named a dropped column are gone from the declared shape: drop them first,
        // so the rebuild recreates only the ones that still fit.
        for index in Self.indexes(on: newTable.name, declaredIn: before, missingFrom: after) {
            try db.execute("DROP INDEX IF EXISTS main.\(quoteIdentifier(index.name))")
        }
        try db.rebuildTable(named: newTable.name, definition: newTable.definitionSQL, copying: copying)
    }

    /// The indexes on `table` declared in `state` but not in `other` (those an alteration dropped
    /// with a column).
    private static func indexes(on table: String, declaredIn state: SchemaState, missingFrom other: SchemaState) -> [SchemaIndex] {
        state.indexes.filter {
            $0.tableName.caseInsensitiveCompare(table) == .orderedSame && other.index($0.name) == nil
        }
    }

    /// Down: renames back with `ALTER TABLE`, then (unless the alteration was renames only) a
    /// rebuild to the shape declared before it, copying the columns that existed before it.
    private func unalter(_ db: Connection, table: String, changes: [TableAlteration]) throws {
        guard let oldTable = before.table(table) else { return }
        for rename in Self.renames(in: changes).reversed() {
            try Self.renameColumn(db, table: oldTable.name, from: rename.new, to: rename.old)
        }
        if changes.allSatisfy(\.isRenameOnly) { return }
        var addedNames = Set<String>()
        for case .addColumn(let column, _) in changes { addedNames.insert(column.name.lowercased()) }
        let current = try db.tableInfoForTableNamed(oldTable.name)
        let copying: [(column: String, expression: String)] = oldTable.columns.compactMap { column in
            guard current?[column.name] != nil, !addedNames.contains(column.name.lowercased()) else { return nil }
            return (column: column.name, expression: quoteIdentifier(column.name))
        }
        try db.rebuildTable(named: oldTable.name, definition: oldTable.definitionSQL, copying: copying)
        for index in Self.indexes(on: oldTable.name, declaredIn: before, missingFrom: after) {
            try db.runSingleStatement(index.createSQL)
        }
    }
}
