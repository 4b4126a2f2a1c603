// strata-crash-writer: the writer process of the Litestream crash test. It commits numbered
// transactions on a replication-safe Database while reader threads run, and prints each
// transaction's number and wall-clock time (milliseconds) once its COMMIT has returned, until it
// is killed. Each transaction writes one `ledger` row and three `parts` rows, so a restored copy
// that holds a partial transaction shows it. With `--open-close` it is one short-lived process
// of several that open, write, read and close one file at once.
import Foundation
import StrataSQift
import Strata

let arguments = CommandLine.arguments
// `--open-close DATABASE NAME`: the Concurrency article's program, once: opens the database,
// writes NAME, reads the count, closes; prints the count. Several run at once on one fresh file.
if arguments.count == 4, arguments[1] == "--open-close" {
    do {
        let database = try Database(path: arguments[2])
        let name = arguments[3]
        // Top-level code picks the synchronous forms, which block this thread as the program wants.
        try database.write { db in
            try db.execute("CREATE TABLE IF NOT EXISTS visit(name TEXT PRIMARY KEY NOT NULL)")
            try db.run("INSERT INTO visit(name) VALUES (?)", name)
        }
        let count = try database.read { db in try db.query("SELECT count(*) FROM visit") as Int? } ?? 0
        try await database.close()
        print(count)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("strata-crash-writer --open-close: \(error)\n".utf8))
        exit(1)
    }
}
guard arguments.count == 2 || (arguments.count == 3 && arguments[2] == "--heavy-writes") else {
    FileHandle.standardError.write(Data("usage: strata-crash-writer DATABASE [--heavy-writes]\n".utf8))
    exit(2)
}
do {
    let safety: ReplicationSafety = arguments.count == 3 ? .litestreamHeavyWrites : .litestream
    let database = try replicatedDatabase(arguments[1], safety)
    try database.executeWrite { db in
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS ledger (n INTEGER PRIMARY KEY, payload TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS parts (n INTEGER NOT NULL, k INTEGER NOT NULL, PRIMARY KEY (n, k));
            """)
    }
    for _ in 0..<2 {
        Thread.detachNewThread {
            while true {
                _ = try? database.executeRead { db in try db.query("SELECT count(*) + coalesce(sum(k), 0) FROM parts") as Int? }
            }
        }
    }
    var next = (try database.executeRead { try $0.query("SELECT coalesce(max(n), 0) FROM ledger") as Int? } ?? 0) + 1
    while true {
        let n = next
        try database.executeWrite { db in
            try db.transaction {
                try db.run("INSERT INTO ledger (n, payload) VALUES (?, ?)", n, String(repeating: "x", count: 200))
                for k in 1...3 { try db.run("INSERT INTO parts (n, k) VALUES (?, ?)", n, k) }
            }
        }
        let milliseconds = Int64(Date().timeIntervalSince1970 * 1_000)
        FileHandle.standardOutput.write(Data("\(n) \(milliseconds)\n".utf8))
        next += 1
    }
} catch {
    FileHandle.standardError.write(Data("strata-crash-writer: \(error)\n".utf8))
    exit(1)
}

/// A database opened as new code opens one under a replicator: the safety as a configuration field.
func replicatedDatabase(_ path: String, _ safety: ReplicationSafety) throws -> Database {
    var configuration = Database.Configuration()
    configuration.replicationSafety = safety
    return try Database(path: path, configuration: configuration)
}
