import StrataKernel
import Foundation

/// The declared tables and indexes at one point of a schema's history.
struct SchemaState: Hashable, Sendable {
    var tables: [SchemaTable] = []
    var indexes: [SchemaIndex] = []
    var virtualTables: [SchemaVirtualTable] = []

    func table(_ name: String) -> SchemaTable? {
        tables.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    func virtualTable(_ name: String) -> SchemaVirtualTable? {
        virtualTables.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    func index(_ name: String) -> SchemaIndex? {
        indexes.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    private func tablePosition(_ name: String) throws -> Int {
        guard let position = tables.firstIndex(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
            throw SchemaMigrationError.invalidSchema(reason: "no table \"\(name)\" is declared at this point of the schema")
        }
        return position
    }

    private func indexPosition(_ name: String) throws -> Int {
        guard let position = indexes.firstIndex(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
            throw SchemaMigrationError.invalidSchema(reason: "no index \"\(name)\" is declared at this point of the schema")
        }
        return position
    }

    private func requireUnused(_ name: String) throws {
        if table(name) != nil || index(name) != nil || virtualTable(name) != nil {
            throw SchemaMigrationError.invalidSchema(reason: "\"\(name)\" is already declared")
        }
    }

    /// Applies one declared step.
    /// - Throws: ``SchemaMigrationError/invalidSchema(reason:)`` when the step refers to something
    ///   the schema has not declared, or declares something twice.
    mutating func apply(_ operation: SchemaOperation) throws {
        switch operation {
        case .createTable(let table):
            try requireUnused(table.name)
            if table.columns.isEmpty { throw SchemaMigrationError.invalidSchema(reason: "table \"\(table.name)\" has no columns") }
            tables.append(table)
        case .createVirtualTable(let table):
            try requireUnused(table.name)
            if table.columnNames.isEmpty { throw SchemaMigrationError.invalidSchema(reason: "table \"\(table.name)\" has no columns") }
            virtualTables.append(table)
        case .dropTable(let name) where virtualTable(name) != nil:
            virtualTables.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        case .alterTable(let name, let changes):
            let position = try tablePosition(name)
            for change in changes { try apply(change, toTableAt: position) }
        case .dropTable(let name):
            let position = try tablePosition(name)
            tables.remove(at: position)
            indexes.removeAll { $0.tableName.caseInsensitiveCompare(name) == .orderedSame }
        case .renameTable(let old, let new):
            let position = try tablePosition(old)
            if old.caseInsensitiveCompare(new) != .orderedSame { try requireUnused(new) }
            tables[position].name = new
            for i in indexes.indices where indexes[i].tableName.caseInsensitiveCompare(old) == .orderedSame {
                indexes[i].tableName = new
            }
        case .createIndex(let index):
            try requireUnused(index.name)
            let table = try tables[tablePosition(index.tableName)]
            for column in index.columns where table.columnNamed(column) == nil {
                throw SchemaMigrationError.invalidSchema(reason: "index \"\(index.name)\" names \"\(column)\", which \"\(table.name)\" does not declare")
            }
            indexes.append(index)
        case .dropIndex(let name):
            indexes.remove(at: try indexPosition(name))
        case .renameIndex(let old, let new):
            let position = try indexPosition(old)
            if old.caseInsensitiveCompare(new) != .orderedSame { try requireUnused(new) }
            indexes[position].name = new
        case .execute:
            break
        }
    }

    private mutating func apply(_ change: TableAlteration, toTableAt position: Int) throws {
        let tableName = tables[position].name
        func columnPosition(_ name: String) throws -> Int {
            guard let index = tables[position].columns.firstIndex(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
                throw SchemaMigrationError.invalidSchema(reason: "table \"\(tableName)\" declares no column \"\(name)\"")
            }
            return index
        }
        switch change {
        case .addColumn(let column, _):
            if tables[position].columnNamed(column.name) != nil {
                throw SchemaMigrationError.invalidSchema(reason: "table \"\(tableName)\" already declares column \"\(column.name)\"")
            }
            tables[position].columns.append(column)
        case .alterColumn(let name, let renameTo, let type, let constraints, _):
            let index = try columnPosition(name)
            if let renameTo, renameTo.caseInsensitiveCompare(name) != .orderedSame {
                if tables[position].columnNamed(renameTo) != nil {
                    throw SchemaMigrationError.invalidSchema(reason: "table \"\(tableName)\" already declares column \"\(renameTo)\"")
                }
                for i in indexes.indices where indexes[i].tableName.caseInsensitiveCompare(tableName) == .orderedSame {
                    indexes[i].columns = indexes[i].columns.map { $0.caseInsensitiveCompare(name) == .orderedSame ? renameTo : $0 }
                }
            }
            if let renameTo { tables[position].columns[index].name = renameTo }
            if let type { tables[position].columns[index].type = type }
            if let constraints { tables[position].columns[index].constraints = constraints }
        case .dropColumn(let name):
            let index = try columnPosition(name)
            // As in Squeal, the table's indexes that name the column go with it; the others stay.
            indexes.removeAll {
                $0.tableName.caseInsensitiveCompare(tableName) == .orderedSame
                    && $0.columns.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
            }
            tables[position].columns.remove(at: index)
            if tables[position].columns.isEmpty {
                throw SchemaMigrationError.invalidSchema(reason: "table \"\(tableName)\" would have no columns left")
            }
        case .addConstraint(let constraint):
            if let name = constraint.name, tables[position].constraints.contains(where: { $0.name?.caseInsensitiveCompare(name) == .orderedSame }) {
                throw SchemaMigrationError.invalidSchema(reason: "table \"\(tableName)\" already declares constraint \"\(name)\"")
            }
            tables[position].constraints.append(constraint)
        case .dropConstraint(let name):
            guard let index = tables[position].constraints.firstIndex(where: { $0.name?.caseInsensitiveCompare(name) == .orderedSame }) else {
                throw SchemaMigrationError.invalidSchema(reason: "table \"\(tableName)\" declares no constraint named \"\(name)\"")
            }
            tables[position].constraints.remove(at: index)
        case .dropConstraintClause(let sql):
            guard let index = tables[position].constraints.firstIndex(where: { $0.sql == sql }) else {
                throw SchemaMigrationError.invalidSchema(reason: "table \"\(tableName)\" declares no constraint \(sql)")
            }
            tables[position].constraints.remove(at: index)
        case .dropAllConstraints:
            tables[position].constraints.removeAll()
        }
    }
}
