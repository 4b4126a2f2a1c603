// The sweep: an operation run with a fault at call N, for N = 1, 2, ... until it succeeds with no
// fault injected, and what must hold at every N (the error, the connection, the file).

import Foundation
import StrataSQift
import Strata
import Testing
#if canImport(SQLite3)
import SQLite3
#endif

/// What a sweep saw, over every fault kind and every N.
struct SweepTally: CustomStringConvertible {
    var points = 0
    var failed = 0
    var oldState = 0
    var newState = 0

    var description: String { "\(points) fault points: \(failed) threw, \(oldState) left the old state, \(newState) the new" }
}

extension Sweep where Context == Connection {
    /// An operation run on `Connection(storageLocation: .onDisk(path))` to the file, the connection
    /// checked afterwards.
    init(
        name: String, faults: [Fault], setUp: @escaping (Connection) throws -> Void,
        run: @escaping (Connection) throws -> Void, state: @escaping (Connection) throws -> String
    ) {
        self.init(
            name: name, faults: faults, setUp: setUp, open: { path, _ in try Connection(storageLocation: .onDisk(path)) },
            connection: { $0 }, run: run, state: state)
    }
}

/// One operation to sweep. `open` opens what the operation runs on (no fault armed yet), `run`
/// runs it, `connection` is the connection checked afterwards, and `state` reads the data that
/// must be exactly the old or the new (from a fresh connection, or the operation's own).
struct Sweep<Context> {
    let name: String
    var faults: [Fault]
    /// Builds the database the operation starts from (once; each N starts from a copy).
    let setUp: (Connection) throws -> Void
    let open: (_ databasePath: String, _ scope: FaultScope) throws -> Context
    let connection: (Context) -> Connection
    let run: (Context) throws -> Void
    let state: (Connection) throws -> String
    /// Sets the template up in WAL mode (its WAL is copied with it).
    var wal = false
    /// Whether the operation changes the data (a checkpoint does not: old and new are one).
    var changesData = true
    /// Files the operation writes besides the database, checked to be whole or absent.
    var extraFiles: [String] = []
    /// Reads the state of an extra file, `nil` when it must not exist.
    var extraState: ((String) throws -> String?)? = nil
    /// Errors SQLite itself reports instead of the injected code, by code and its exact message
    /// (VACUUM INTO reads a failed size check of its target as "output file already exists").
    var sqliteTranslations: [(code: Int32, message: String)] = []

    /// Runs the sweep and returns its tally (printed too).
    @discardableResult
    func callAsFunction(limit: Int = 300) throws -> SweepTally {
        let template = try FaultScope()
        let templatePath = template.path("template.sqlite")
        do {
            let connection = try Connection(storageLocation: .onDisk(templatePath))
            if wal { try connection.execute("PRAGMA journal_mode = WAL") }
            try setUp(connection)
        }
        // The old state is what `open` sees (it may write, as a checkpoint's setup does); the new
        // one, the operation run once untouched.
        let untouched = try runOnce(template: templatePath, fault: nil, nth: 0)
        let oldState = untouched.oldState, newState = untouched.state
        if changesData {
            #expect(newState != oldState, "\(name): the operation changes nothing, so the sweep proves nothing")
        }

        var tally = SweepTally()
        for fault in faults {
            var nth = 1
            while nth <= limit {
                let outcome = try runOnce(template: templatePath, fault: fault, nth: nth)
                tally.points += 1
                if outcome.threw { tally.failed += 1 }
                if outcome.state == oldState {
                    tally.oldState += 1
                } else if outcome.state == newState {
                    tally.newState += 1
                } else {
                    Issue.record(
                        "\(name), \(fault) at call \(nth): the file holds neither the old nor the new state:\n\(outcome.state)\nold:\n\(oldState)\nnew:\n\(newState)"
                    )
                }
                if !outcome.threw && outcome.injected == 0 { break }
                nth += 1
            }
            #expect(nth <= limit, "\(name), \(fault): still failing at call \(limit)")
        }
        print("fault sweep: \(name): \(tally)")
        return tally
    }

    private struct Outcome { var threw: Bool; var injected: Int; var state: String; var oldState: String }

    private func runOnce(template: String, fault: Fault?, nth: Int) throws -> Outcome {
        let scope = try FaultScope()
        let path = scope.path("db.sqlite")
        try FileManager.default.copyItem(atPath: template, toPath: path)
        if FileManager.default.fileExists(atPath: template + "-wal") {
            try FileManager.default.copyItem(atPath: template + "-wal", toPath: path + "-wal")
        }
        var oldState = ""
        let label = fault.map { "\(name), \($0) at call \(nth)" } ?? "\(name), untouched"
        var threw = false
        var injected = 0
        do {
            let context = try open(path, scope)
            let connection = connection(context)
            oldState = try connection.withState(state)
            for file in extraFiles { oldState += "\n\(file): \(try extraState?(scope.path(file)) ?? "absent")" }
            if let fault { scope.arm(fault, at: nth) }
            do {
                try run(context)
            } catch {
                threw = true
                checkError(error, fault: fault, label: label)
            }
            injected = scope.injected
            scope.clear()
            if fault == nil && threw { throw FaultTestError("\(label): failed without a fault") }
            if injected > 0 && !threw {
                // SQLite absorbed the fault (it retries some calls and ignores others); fine as
                // long as the state is whole, which the checks below show.
            }
            // The connection is consistent with SQLite's own state and usable again.
            var statement = sqlite3_next_stmt(connection.handle, nil)
            while let current = statement {
                #expect(sqlite3_stmt_busy(current) == 0, "\(label): a statement was left mid-step: \(String(cString: sqlite3_sql(current)))")
                statement = sqlite3_next_stmt(connection.handle, current)
            }
            #expect(!connection.isInTransaction, "\(label): a transaction is still open after the operation")
            do {
                let seen = try connection.withState(state)
                _ = seen
                try connection.execute("BEGIN IMMEDIATE; ROLLBACK")
            } catch {
                Issue.record("\(label): the connection is not usable once the fault is cleared: \(error)")
            }
        }
        // Reopened from disk (every handle of the operation is closed by now).
        let reopened = try Connection(storageLocation: .onDisk(path))
        let integrity: [String] = try reopened.query("PRAGMA integrity_check")
        #expect(integrity == ["ok"], "\(label): integrity_check says \(integrity)")
        var state = try reopened.withState(self.state)
        for file in extraFiles {
            let extra = try extraState?(scope.path(file)) ?? nil
            state += "\n\(file): \(extra ?? "absent")"
        }
        return Outcome(threw: threw, injected: injected, state: state, oldState: oldState)
    }

    /// The error says what failed: SQLite's own code, and "disk full" words for a full disk.
    private func checkError(_ error: any Error, fault: Fault?, label: String) {
        guard let fault else { return }
        guard let error = error as? SQLiteError ?? (error as? any UnderlyingSQLiteError)?.sqliteError else {
            Issue.record("\(label): threw \(type(of: error)), not SQLiteError: \(error)")
            return
        }
        let expected = fault.code != 0 ? fault.code & 0xFF : (fault.method == .open ? SQLITE_CANTOPEN : SQLITE_IOERR)
        if sqliteTranslations.contains(where: { $0.code == error.code && $0.message == error.message }) { return }
        #expect(error.code == expected, "\(label): code \(error.code) (\(error.message)), expected \(expected)")
        #expect(
            !error.message.isEmpty && error.message != "unknown error" && error.message != "not an error",
            "\(label): generic message \(error.message)")
        if expected == SQLITE_FULL {
            #expect(error.message.contains("disk") && error.message.contains("full"), "\(label): message \(error.message)")
        }
    }
}

/// Errors of the layers above that carry the SQLite error underneath.
protocol UnderlyingSQLiteError: Error { var sqliteError: SQLiteError? { get } }

extension Connection {
    /// Runs `state` and closes nothing: a helper so the reopen reads the same way.
    func withState(_ state: (Connection) throws -> String) throws -> String { try state(self) }
}

/// Every row of every user table, as text, ordered: the data that must be exactly old or new.
/// The `items` table of the sweeps, with `count` rows named "item <id>" whose payloads are made
/// by the SQL expression `payload`, written in one transaction; `index` (SQL) runs after the
/// table is made.
func makeItems(_ db: Connection, count: Int, payload: String, index: String? = nil) throws {
    try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT, payload BLOB)")
    if let index { try db.execute(index) }
    try db.transaction {
        for id in 1...count { try db.run("INSERT INTO items VALUES(?, ?, " + payload + ")", id, "item \(id)") }
    }
}

func allRows(_ connection: Connection) throws -> String {
    let tables: [String] = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    var lines = try connection.query("SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name") as [String]
    for table in tables {
        let columns: [String] = try connection.query("SELECT name FROM pragma_table_info(?)", table)
        let values = columns.map { "quote(\(quoteIdentifier($0)))" }.joined(separator: " || '|' || ")
        let rows: [String] = try connection.query("SELECT \(values) FROM \(quoteIdentifier(table)) ORDER BY 1")
        lines.append("\(table): \(rows.joined(separator: " "))")
    }
    lines.append("user_version \(try connection.query("PRAGMA user_version") as Int? ?? -1)")
    return lines.joined(separator: "\n")
}
