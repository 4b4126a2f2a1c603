import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// Dump and restore over generated schemas and rows, differential against SQLite itself: our dump
/// loads through `restore` and through the `sqlite3` shell to the same rows, storage classes,
/// schema and header fields, and keeps at least everything SQLite's own `.dump` keeps.
@Suite struct DumpPropertyTests {
    /// A generated database in a file, and the tables whose rows must survive exactly (the shadow
    /// tables of a self-contained FTS index are rebuilt by its inserts, not copied).
    struct Generated {
        var comparedTables: [String] = []
        var description: [String] = []
    }

    static func generate(into connection: Connection, _ random: inout SeededRandom) throws -> Generated {
        var generated = Generated()
        func run(_ sql: String, _ parameters: [Bindable?] = []) throws {
            generated.description.append(sql)
            try connection.run(sql, parameters)
        }
        let names = Gen.distinctIdentifiers(&random, count: 8, prefix: "t")
        var plainTables: [(name: String, columns: [String])] = []
        for index in 0..<random.int(1...4) {
            let table = names[index]
            let columns = Gen.distinctIdentifiers(&random, count: random.int(1...4), prefix: "c")
            let quoted = columns.map(quoteIdentifier)
            let kind = random.int(0...5)
            var definitions: [String]
            var tail = ""
            var fills = quoted
            switch kind {
            case 1: // STRICT
                definitions = quoted.map { $0 + " ANY" }
                tail = " STRICT"
            case 2: // WITHOUT ROWID, first column the key
                definitions = quoted.map { $0 + " " + random.pick(["", "INTEGER", "TEXT", "BLOB"]) } + ["PRIMARY KEY(\(quoted[0]))"]
                tail = " WITHOUT ROWID"
            case 3: // AUTOINCREMENT
                definitions = ["\"id\" INTEGER PRIMARY KEY AUTOINCREMENT"] + quoted.map { $0 + " " + random.pick(["", "NUMERIC", "REAL"]) }
            case 4: // INTEGER PRIMARY KEY DESC: no rowid alias
                definitions = ["\"id\" INTEGER PRIMARY KEY DESC"] + quoted
                fills = ["\"id\""] + quoted
            case 5: // generated columns
                definitions =
                    quoted.map { $0 + " " + random.pick(["", "TEXT", "INTEGER"]) }
                    + ["\"g1\" GENERATED ALWAYS AS (typeof(\(quoted[0]))) VIRTUAL", "\"g2\" ANY GENERATED ALWAYS AS (length(\(quoted[0]))) STORED"]
            default:
                definitions = quoted.map { $0 + " " + random.pick(["", "INTEGER", "REAL", "TEXT", "BLOB", "NUMERIC", "ANY"]) }
            }
            try run("CREATE TABLE \(quoteIdentifier(table))(\(definitions.joined(separator: ", ")))\(tail)")
            for row in 0..<random.int(0...8) {
                var values: [Bindable?] = []
                var placeholders: [String] = []
                for (offset, _) in fills.enumerated() {
                    if kind == 2 || kind == 4, offset == 0 {
                        // Keys stay unique; an INTEGER PRIMARY KEY DESC also takes NULL.
                        values.append(kind == 4 && random.oneIn(3) ? nil : Int64(row))
                        placeholders.append("?")
                    } else if random.oneIn(8) {
                        values.append(Gen.invalidUTF8(&random))
                        placeholders.append("CAST(? AS TEXT)")
                    } else {
                        values.append(Gen.value(&random, huge: true).bindable)
                        placeholders.append("?")
                    }
                }
                try run("INSERT INTO \(quoteIdentifier(table))(\(fills.joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", ")))", values)
            }
            if kind != 2, random.oneIn(3) { try run("DELETE FROM \(quoteIdentifier(table)) WHERE rowid % 3 = 0") }
            generated.comparedTables.append(table)
            if kind == 3 { generated.comparedTables.append("sqlite_sequence") }
            if kind == 0 || kind == 1 { plainTables.append((table, columns)) }
        }
        // Full-text indexes in every content mode.
        let words = ["alpha", "beta", "gamma", "delta", "x'y", "Ω"]
        if random.oneIn(2) {
            let fts = names[4]
            try run("CREATE VIRTUAL TABLE \(quoteIdentifier(fts)) USING fts5(body, extra)")
            for _ in 0..<random.int(0...5) {
                try run(
                    "INSERT INTO \(quoteIdentifier(fts))(body, extra) VALUES (?, ?)",
                    [random.pick(words) + " " + Gen.text(&random, nul: false), Gen.text(&random)])
            }
            generated.comparedTables.append(fts)
        }
        if random.oneIn(2) {
            let fts = names[5]
            try run("CREATE VIRTUAL TABLE \(quoteIdentifier(fts)) USING fts5(body, content='')")
            for rowid in 0..<random.int(0...5) {
                try run("INSERT INTO \(quoteIdentifier(fts))(rowid, body) VALUES (?, ?)", [rowid * 7, random.pick(words) + " " + random.pick(words)])
            }
            generated.comparedTables += [fts + "_data", fts + "_idx", fts + "_docsize", fts + "_config"]
        }
        if let (table, columns) = plainTables.first {
            // An external-content index over a table, and one over a view of a view.
            let fts = names[6]
            let column = quoteIdentifier(columns[0])
            try run("CREATE VIRTUAL TABLE \(quoteIdentifier(fts)) USING fts5(\(column), content=\(table.sqift.addingSQLEscapes()))")
            try run("INSERT INTO \(quoteIdentifier(fts))(\(quoteIdentifier(fts))) VALUES ('rebuild')")
            generated.comparedTables += [fts + "_data", fts + "_idx", fts + "_docsize", fts + "_config"]
            let view = names[7]
            try run("CREATE VIEW \(quoteIdentifier(view + "v")) AS SELECT rowid AS r, \(column) FROM \(quoteIdentifier(table))")
            try run("CREATE VIEW \(quoteIdentifier(view)) AS SELECT r, \(column) FROM \(quoteIdentifier(view + "v")) WHERE r > 0")
            try run("CREATE VIRTUAL TABLE \(quoteIdentifier(view + "fts")) USING fts5(\(column), content=\(view.sqift.addingSQLEscapes()), content_rowid='r')")
            try run("INSERT INTO \(quoteIdentifier(view + "fts"))(\(quoteIdentifier(view + "fts"))) VALUES ('rebuild')")
            generated.comparedTables += [view + "fts_data", view + "fts_idx", view + "fts_docsize", view + "fts_config"]
            try run("CREATE INDEX \(quoteIdentifier(table + "i")) ON \(quoteIdentifier(table))(\(column) DESC)")
            try run("CREATE TABLE \(quoteIdentifier(table + "log"))(n)")
            try run(
                "CREATE TRIGGER \(quoteIdentifier(table + "trig")) AFTER INSERT ON \(quoteIdentifier(table)) BEGIN INSERT INTO \(quoteIdentifier(table + "log")) VALUES (new.rowid); END"
            )
            generated.comparedTables.append(table + "log")
        }
        try run("PRAGMA user_version = \(Int32.random(in: .min ... .max, using: &random))")
        try run("PRAGMA application_id = \(Int32.random(in: .min ... .max, using: &random))")
        return generated
    }

    @Test func dumpsLoadThroughRestoreAndTheShellAndKeepWhatSQLitesDumpKeeps() async throws {
        try await onOwnThread {
            try PropertyCheck.run("dump and restore", cases: 12) { random in
                let directory = try TemporaryDirectory()
                let source = try Connection(storageLocation: .onDisk(directory.path("source.db")))
                let generated = try Self.generate(into: source, &random)
                let context = "\n" + generated.description.joined(separator: "\n")
                let tables = Array(Set(generated.comparedTables)).sorted()
                let expected = try DatabaseSnapshot(source, tables: tables)
                var text = ""
                try source.dump(to: &text)

                let restored = try Connection()
                try restored.restore(fromDump: text)
                let viaRestore = try DatabaseSnapshot(restored, tables: tables)
                try require(viaRestore == expected, "restore differs:\nexpected \(expected)\ngot \(viaRestore)\(context)")
                var again = ""
                try restored.dump(to: &again)
                try require(again == text, "the restored database dumps differently\(context)")

                // The shell reads its input by lines and drops a `\r` before a line end: a name
                // holding "\r\n" cannot pass through it (schema SQL is dumped verbatim, by SQLite's
                // `.dump` too); `restore` above keeps it.
                let schemaText: [String] = try source.query("SELECT coalesce(sql, '') FROM sqlite_master")
                let crossesLines = schemaText.contains { sql in
                    let bytes = Array(sql.utf8)
                    return zip(bytes, bytes.dropFirst()).contains { $0 == 0x0D && $1 == 0x0A }
                }
                guard SQLiteShell.path != nil, !crossesLines else { return }
                let shellLoaded = directory.path("shell.db")
                let load = try SQLiteShell.run(database: shellLoaded, input: Data(text.utf8))
                try require(load.status == 0 && load.error.isEmpty, "the shell failed to load our dump: \(load.error)\(context)")
                let shellConnection = try Connection(storageLocation: .onDisk(shellLoaded))
                let viaShell = try DatabaseSnapshot(shellConnection, tables: tables)
                // REAL literals are the shortest the loaded SQLite reads back exactly; an older
                // shell's reader (3.40's is not correctly rounded) may read some one ULP off, so
                // the shell's load is compared only where the shell runs the same SQLite.
                if try SQLiteShell.version == Connection().sqliteVersion {
                    try require(viaShell == expected, "shell load differs:\nexpected \(expected)\ngot \(viaShell)\(context)")
                }

                // SQLite's own .dump is the anchor: every object and row it keeps, ours keeps.
                let theirs = try SQLiteShell.run(database: directory.path("source.db"), arguments: [".dump"])
                let anchorPath = directory.path("anchor.db")
                let anchorLoad = try SQLiteShell.run(database: anchorPath, input: theirs.output)
                // Its dump may fail to load (3.40 takes INTEGER PRIMARY KEY DESC for a rowid alias
                // and loses NULL keys to UNIQUE errors); whatever it did load, ours must have too.
                _ = anchorLoad
                let anchor = try Connection(storageLocation: .onDisk(anchorPath))
                let anchorObjects = Set(try anchor.query("SELECT type || ' ' || name FROM sqlite_master") as [String])
                let ourObjects = Set(try restored.query("SELECT type || ' ' || name FROM sqlite_master") as [String])
                try require(anchorObjects.isSubset(of: ourObjects), "SQLite's dump keeps \(anchorObjects.subtracting(ourObjects)) that ours loses\(context)")
                for table in generated.comparedTables where anchorObjects.contains("table " + table) {
                    let quoted = quoteIdentifier(table)
                    let theirCount: Int = try anchor.query("SELECT count(*) FROM \(quoted)") ?? -1
                    let ourCount: Int = try restored.query("SELECT count(*) FROM \(quoted)") ?? -1
                    try require(ourCount >= theirCount, "\(table): SQLite's dump keeps \(theirCount) rows, ours \(ourCount)\(context)")
                }
            }
        }
    }
}
