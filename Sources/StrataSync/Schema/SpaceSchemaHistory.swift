// A space's schema versions on the hub: each version's tables (width and signature), so a
// replica on an earlier version is recognized and served the columns it has, and the check that
// keeps each new version additive.
import Foundation
import Strata

enum SpaceSchemaHistory {
    private typealias Tables = SyncBookkeeping

    /// The space's schema version (1 until the first migration).
    static func version(_ connection: Connection) throws -> Int {
        Int(try Tables.meta.value("schema_version", connection) as Int64? ?? 1)
    }

    /// Records the space's tables as they are now as schema `version`.
    static func record(version: Int, _ connection: Connection) throws {
        for table in try connection.schemaReader.userTableNames() where !Tables.isBookkeeping(table) {
            let columns = try connection.schemaReader.columns(ofTable: table).filter { $0.hidden == 0 }.count
            let signature = try SchemaFingerprint.signature(of: table, in: connection)
            try connection.run(
                literal: """
                    INSERT OR REPLACE INTO \(identifier: Tables.schema.name)(version, name, columns, signature)
                    VALUES (\(version), \(table), \(columns), \(signature))
                    """)
        }
        try Tables.meta.set("schema_version", .integer(Int64(version)), connection)
    }

    /// Which schema version `tables` with `fingerprint` are: nil for the current one, else each
    /// table's width (column count) at the earlier version the fingerprint matches.
    /// - Throws: ``SyncError/schemaMismatch(local:remote:)`` when it matches none.
    static func widths(of tables: [String], fingerprint: String, _ connection: Connection) throws -> [String: Int]? {
        let ours = try SchemaFingerprint.of(tables: tables, in: connection)
        if ours == fingerprint { return nil }
        let rows: [Row] = try connection.query(
            literal: """
                SELECT version, name, columns, signature FROM \(identifier: Tables.schema.name) ORDER BY version DESC
                """)
        var byVersion: [Int64: [String: (columns: Int, signature: String)]] = [:]
        for row in rows {
            byVersion[row.value(at: 0) ?? 0, default: [:]][(row.value(at: 1) as String? ?? "").lowercased()] = (row.value(at: 2) ?? 0, row.value(at: 3) ?? "")
        }
        for version in byVersion.keys.sorted(by: >) {
            guard let known = byVersion[version] else { continue }
            let parts = tables.map { known[$0.lowercased()] }
            guard parts.allSatisfy({ $0 != nil }) else { continue }
            if try SchemaFingerprint.hash(parts.compactMap { $0?.signature }) == fingerprint {
                var widths: [String: Int] = [:]
                for (table, part) in zip(tables, parts) { widths[table.lowercased()] = part?.columns }
                return widths
            }
        }
        throw SyncError.schemaMismatch(local: fingerprint, remote: ours)
    }

    /// Why the tables `created` makes are none of the space's schema versions in `connection`,
    /// or nil when they are one of them (the current one, or one the space was migrated from:
    /// a deploy that keeps passing its first schema file to `--create` still starts).
    static func difference(of created: Connection, from connection: Connection) throws -> String? {
        func signatures(_ connection: Connection) throws -> [String: String] {
            var signatures: [String: String] = [:]
            for table in try connection.schemaReader.userTableNames() where !Tables.isBookkeeping(table) {
                signatures[table.lowercased()] = try SchemaFingerprint.signature(of: table, in: connection)
            }
            return signatures
        }
        let wanted = try signatures(created)
        let current = try signatures(connection)
        if wanted == current { return nil }
        let rows: [Row] = try connection.query(literal: "SELECT version, name, signature FROM \(identifier: Tables.schema.name)")
        var byVersion: [Int64: [String: String]] = [:]
        for row in rows {
            byVersion[row.value(at: 0) ?? 0, default: [:]][(row.value(at: 1) as String? ?? "").lowercased()] = row.value(at: 2) ?? ""
        }
        if byVersion.values.contains(wanted) { return nil }
        let missing = current.keys.filter { wanted[$0] == nil }.sorted()
        let extra = wanted.keys.filter { current[$0] == nil }.sorted()
        let changed = wanted.keys.filter { current[$0] != nil && current[$0] != wanted[$0] }.sorted()
        let parts: [(String, [String])] = [
            ("other columns in ", changed), ("tables the space does not have: ", extra),
            ("none of the space's tables ", missing)
        ]
        return parts.filter { !$0.1.isEmpty }.map { $0.0 + $0.1.joined(separator: ", ") }.joined(separator: "; ")
    }

    /// Each user table's columns (name, type, NOT NULL, default, key position) and every index.
    typealias Shape = (tables: [String: [String]], indexes: Set<String>)

    static func shape(_ connection: Connection) throws -> Shape {
        var tables: [String: [String]] = [:]
        for table in try connection.schemaReader.userTableNames() where !Tables.isBookkeeping(table) {
            tables[table.lowercased()] = try connection.schemaReader.columns(ofTable: table).filter { $0.hidden == 0 }.map {
                "\($0.name)|\($0.declaredType.uppercased())|\($0.notNull)|\($0.defaultValue ?? "-")|\($0.primaryKeyIndex)"
            }
        }
        let indexes: [String] = try connection.query(literal: "SELECT name FROM main.sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
        return (tables, Set(indexes.map { $0.lowercased() }))
    }

    /// What going from `before` to `after` adds, one line each, for an operator to read
    /// (`add column todo.note TEXT DEFAULT ''`); `after` is additive (checked before).
    static func additions(from before: Shape, to after: Shape) -> [String] {
        func describe(_ column: String) -> String {
            let parts = column.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 5 else { return column }
            return [
                parts[0], parts[1].isEmpty ? nil : parts[1], parts[2] == "true" ? "NOT NULL" : nil,
                parts[3] == "-" ? nil : "DEFAULT " + parts[3], parts[4] == "0" ? nil : "PRIMARY KEY"
            ]
            .compactMap { $0 }.joined(separator: " ")
        }
        var lines: [String] = []
        for (table, columns) in after.tables.sorted(by: { $0.key < $1.key }) {
            if let old = before.tables[table] {
                lines += columns.dropFirst(old.count).map { "add column \(table).\(describe($0))" }
            } else {
                lines += ["add table \(table) (\(columns.map(describe).joined(separator: ", ")))"]
            }
        }
        lines += after.indexes.subtracting(before.indexes).sorted().map { "add index \($0)" }
        return lines
    }

    /// Why going from `before` to `after` is not additive, or nil when it is.
    static func destructiveChange(from before: Shape, to after: Shape) -> String? {
        for (table, columns) in before.tables.sorted(by: { $0.key < $1.key }) {
            guard let now = after.tables[table] else { return "it drops or renames the table \(table), which replicas on earlier versions sync" }
            for (index, column) in columns.enumerated() {
                let name = String(column.prefix { $0 != "|" })
                guard index < now.count else { return "it drops the column \(table).\(name)" }
                guard now[index] == column else {
                    let renamed = String(now[index].prefix { $0 != "|" })
                    return renamed == name ? "it changes the column \(table).\(name)" : "it renames or drops the column \(table).\(name)"
                }
            }
            for column in now.dropFirst(columns.count) where !column.hasSuffix("|0") {
                return "it adds a key column to \(table) (\(column.prefix { $0 != "|" }))"
            }
        }
        if let dropped = before.indexes.subtracting(after.indexes).sorted().first {
            return "it drops the index \(dropped)"
        }
        return nil
    }
}
