import ArgumentParser
import Foundation
import Strata

// Changesets compile where Strata links its own SQLite3 target (not on Apple platforms).

/// `strata diff A B`: the changes that turn database A into database B, through the session
/// extension's diff (tables with a primary key present in both).
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Print the changes that turn database A into database B.",
        discussion: """
            One line per changed row: table, operation, primary key, and old → new values. \
            --apply writes the changes to A; --changeset FILE saves them as a binary changeset \
            (apply it elsewhere with strata apply). Tables without a primary key cannot be \
            compared and are listed as not tracked.
            """
    )

    @Argument(help: "The database to change (A).") var from: String
    @Argument(help: "The database with the wanted content (B).") var to: String
    @Flag(help: "Write the changes to A.") var apply = false
    @Option(help: ArgumentHelp("Save the changes as a binary changeset.", valueName: "file")) var changeset: String?

    func run() throws {
        let source = try DatabaseFile.openExisting(from)
        let target = try DatabaseFile.openExisting(to)
        try target.attachDatabase(from: .onDisk(from), withName: "strata_diff_from")
        let reader = target.schemaReader
        let session = try target.recordChanges(tables: reader.userTableNames())
        // The session knows which tables SQLite cannot track (no primary key).
        var untracked = try session.untrackedTables()
        for table in try reader.userTableNames() where !untracked.contains(table) {
            guard try source.schemaReader.table(named: table) != nil else { untracked.append(table); continue }
            do {
                try session.diff(from: "strata_diff_from", table: table)
            } catch let error as SQLiteError {
                untracked.append("\(table)")
                printError("not compared: \(table): \(error.message)")
            }
        }
        // Tables only in A: the session diffs B's tables, so nothing would remove them.
        let targetTables = Set(try reader.userTableNames().map { $0.lowercased() })
        let onlyInSource = try source.schemaReader.userTableNames().filter { !targetTables.contains($0.lowercased()) }
        // Tables in both whose columns differ: the diff cannot carry their changes.
        var schemaDifferences: [String] = []
        for table in try reader.userTableNames() where !untracked.contains(table) {
            let ours = try source.schemaReader.columns(ofTable: table).map { "\($0.name.lowercased()) \($0.declaredType.lowercased()) \($0.primaryKeyIndex)" }
            let theirs = try reader.columns(ofTable: table).map { "\($0.name.lowercased()) \($0.declaredType.lowercased()) \($0.primaryKeyIndex)" }
            if ours != theirs { schemaDifferences.append(table) }
        }
        // SQLite's diff skips rows whose primary key holds a NULL (possible unless it is the rowid).
        var nullKeys: [String] = []
        for table in try reader.userTableNames() where !untracked.contains(table) {
            let key = try reader.columns(ofTable: table).filter { $0.primaryKeyIndex > 0 }.map(\.name)
            guard !key.isEmpty else { continue }
            let condition = key.map { quoteIdentifier($0) + " IS NULL" }.joined(separator: " OR ")
            for (schema, name) in [("main", to), ("strata_diff_from", from)] {
                let count: Int = try target.query("SELECT count(*) FROM \(quoteIdentifier(schema)).\(quoteIdentifier(table)) WHERE \(condition)") ?? 0
                if count > 0 {
                    nullKeys.append("skipped: \(table) has \(count) row\(count == 1 ? "" : "s") with a NULL primary key in \(name) (the diff ignores them)")
                }
            }
        }
        let changes = try session.changeset()
        session.close()
        try target.detachDatabase(named: "strata_diff_from")
        var lines = 0
        try changes.forEachChange { change in
            print(Self.line(for: change, columns: try reader.columns(ofTable: change.table).map(\.name)))
            lines += 1
        }
        if lines == 0 { print("No differences.") }
        for table in untracked { print("not tracked: \(table) (no primary key, or missing from \(from))") }
        for table in onlyInSource { print("not tracked: \(table) (only in \(from); the diff does not drop tables)") }
        for table in schemaDifferences { print("schema differs: \(table) (columns differ between \(from) and \(to))") }
        for line in nullKeys { print(line) }
        if let path = changeset {
            try changes.data.write(to: URL(fileURLWithPath: path))
            print("Changeset: \(changes.data.count) bytes written to \(path).")
        }
        if apply {
            // Applying what the diff carries would leave A different from B while saying it was
            // made equal: refused as a whole.
            let uncarried = untracked + onlyInSource + schemaDifferences
            guard uncarried.isEmpty, nullKeys.isEmpty else {
                let what = (uncarried + (nullKeys.isEmpty ? [] : ["rows with a NULL primary key"])).joined(separator: ", ")
                throw CLIError("the diff cannot make \(from) equal to \(to) (\(what)); nothing applied")
            }
            try source.apply(changes) { conflict in
                printError("\(from) changed while diffing: \(conflict.kind) on \(conflict.change.table); nothing applied")
                return .abort
            }
            print("Applied \(lines) change\(lines == 1 ? "" : "s") to \(from).")
        }
    }

    /// `table OPERATION key: old → new` for the columns the change carries.
    static func line(for change: Change, columns: [String]) -> String {
        let name = { (index: Int) in index < columns.count ? columns[index] : "column \(index + 1)" }
        let key = change.primaryKey.map(text).joined(separator: ", ")
        var parts: [String] = []
        for index in change.primaryKeyColumns.indices where !change.primaryKeyColumns[index] {
            let old = change.oldValues[index], new = change.newValues[index]
            switch change.operation {
            case .insert: if let new { parts.append("\(name(index)): \(text(new))") }
            case .delete: if let old { parts.append("\(name(index)): \(text(old))") }
            case .update: if let new { parts.append("\(name(index)): \(old.map(text) ?? "?") → \(text(new))") }
            }
        }
        return "\(change.table) \(String(describing: change.operation).uppercased()) [\(key)]" + (parts.isEmpty ? "" : " " + parts.joined(separator: ", "))
    }

    static func text(_ value: BindingValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let integer): return String(integer)
        case .real(let real): return ValueText.real(real)
        case .text(let text): return "'" + ValueText.singleLine(text) + "'"
        case .blob(let data): return ValueText.blobHex(data)
        }
    }
}

/// `strata apply DB FILE`: applies a binary changeset, all or nothing.
struct ApplyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Apply a binary changeset to a database, all or nothing.",
        discussion: """
            --on-conflict says what to do when a row is not as the changeset expects: abort \
            (the default: nothing is applied), omit (skip that change) or replace (write it anyway \
            where SQLite allows).
            """
    )

    enum Resolution: String, ExpressibleByArgument, CaseIterable {
        case abort, omit, replace
    }

    @Argument(help: "The database to change.") var database: String
    @Argument(help: "The changeset file (from strata diff --changeset).") var file: String
    @Option(name: .customLong("on-conflict"), help: "abort, omit or replace.") var onConflict: Resolution = .abort

    func run() throws {
        let connection = try DatabaseFile.openExisting(database)
        let url = URL(fileURLWithPath: file)
        guard FileManager.default.isReadableFile(atPath: file) else { throw CLIError("cannot read \(file)") }
        var conflicts = 0
        var applied = 0
        try Changeset.forEachChange(inFileAt: url) { _ in applied += 1 }
        do {
            try connection.apply(contentsOf: url) { conflict in
                conflicts += 1
                switch onConflict {
                case .abort:
                    printError(
                        "conflict (\(conflict.kind)) on \(conflict.change.table) [\(conflict.change.primaryKey.map(DiffCommand.text).joined(separator: ", "))]; nothing applied"
                    )
                    return .abort
                case .omit: return .omit
                case .replace: return conflict.kind == .data || conflict.kind == .conflict ? .replace : .omit
                }
            }
        } catch let error as SQLiteError where onConflict == .abort && conflicts > 0 {
            _ = error
            throw ExitCode(1)
        }
        print(
            "Applied \(file) to \(database): \(applied) change\(applied == 1 ? "" : "s"), \(conflicts) conflict\(conflicts == 1 ? "" : "s") (\(onConflict.rawValue))."
        )
    }
}
