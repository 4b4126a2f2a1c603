import ArgumentParser
import Foundation
import Strata

/// `strata check`: integrity and foreign keys, plus the numbers that say how a file is doing.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Run integrity_check and foreign_key_check, and report journal mode, WAL size, pages and freelist.",
        discussion: """
            The exit code is 1 when a check finds a problem. With --status, also report the connection's \
            limits (sqlite3_limit), its memory and cache counters after the checks (sqlite3_db_status) and \
            SQLite's process-wide counters (sqlite3_status64).
            """
    )

    @Argument(help: "Path to an existing database file.") var database: String
    @Flag(help: "Also report the connection's limits, its cache and memory counters, and the process's.") var status = false

    func run() throws {
        let connection = try DatabaseFile.openExisting(database)
        var healthy = true

        let integrity = Self.results(of: "PRAGMA integrity_check", on: connection) { $0.value(at: 0) as? String ?? "" }
        switch integrity {
        case .success(let lines) where lines == ["ok"]:
            print("integrity_check:    ok")
        case .success(let lines):
            healthy = false
            print("integrity_check:    \(lines.count) problem\(lines.count == 1 ? "" : "s")")
            lines.forEach { print("  \($0)") }
        case .failure(let error):
            healthy = false
            print("integrity_check:    failed: \(error.message)")
        }

        let violations = Self.results(of: "SELECT \"table\", rowid, parent FROM pragma_foreign_key_check", on: connection) { row in
            let table = row.value(at: 0) as? String ?? "?"
            let rowID = row.value(at: 1).map { "\($0)" } ?? "(no rowid)"
            let parent = row.value(at: 2) as? String ?? "?"
            return "\(table) row \(rowID) refers to a missing row of \(parent)"
        }
        switch violations {
        case .success(let lines) where lines.isEmpty:
            print("foreign_key_check:  ok")
        case .success(let lines):
            healthy = false
            print("foreign_key_check:  \(lines.count) violation\(lines.count == 1 ? "" : "s")")
            lines.prefix(100).forEach { print("  \($0)") }
            if lines.count > 100 { print("  ... and \(lines.count - 100) more") }
        case .failure(let error):
            healthy = false
            print("foreign_key_check:  failed: \(error.message)")
        }

        let journalMode: String = try connection.query("PRAGMA journal_mode") ?? "unknown"
        let pageCount: Int64 = try connection.query("PRAGMA page_count") ?? 0
        let pageSize: Int64 = try connection.query("PRAGMA page_size") ?? 0
        let freelist: Int64 = try connection.query("PRAGMA freelist_count") ?? 0
        print("journal mode:       \(journalMode)")
        if journalMode.lowercased() == "wal" {
            print("WAL size:           \(Self.bytes(DatabaseFile.fileSize(database + "-wal") ?? 0))")
        } else {
            print("WAL size:           no WAL (not in WAL mode)")
        }
        print("pages:              \(pageCount) x \(pageSize) bytes = \(Self.bytes(pageCount * pageSize))")
        print("freelist:           \(freelist) page\(freelist == 1 ? "" : "s") (\(Self.bytes(freelist * pageSize)))")
        print("sqlite:             \(Connection.sqliteVersion)")
        if let warning = Connection.walResetBugWarning { print("warning:            \(warning)") }
        if status { Self.printStatus(of: connection) }

        if !healthy { throw ExitCode.failure }
    }

    /// The limits, then the connection's counters (as the checks left them), then the process's.
    static func printStatus(of connection: Connection) {
        print("limits:")
        for (limit, value) in connection.limits.all {
            print("  \(limit.name.padding(toLength: 20, withPad: " ", startingAt: 0))\(value)")
        }
        let status = connection.status()
        func line(_ name: String, _ value: String) {
            print("  \(name.padding(toLength: 20, withPad: " ", startingAt: 0))\(value)")
        }
        print("connection status:")
        line("cache used", bytes(status.cacheUsed.current))
        line("schema used", bytes(status.schemaUsed.current))
        line("statements used", bytes(status.statementUsed.current))
        line("lookaside used", "\(status.lookasideUsed.current) slots (highwater \(status.lookasideUsed.highwater))")
        line("lookaside hit", "\(status.lookasideHit.highwater)")
        line("lookaside miss", "\(status.lookasideMissSize.highwater) too big, \(status.lookasideMissFull.highwater) full")
        line("cache hit", "\(status.cacheHit.current)")
        line("cache miss", "\(status.cacheMiss.current)")
        line("cache write", "\(status.cacheWrite.current)")
        line("cache spill", "\(status.cacheSpill.current)")
        let process = SQLiteProcessStatus.current()
        print("process status:")
        line("memory used", "\(bytes(process.memoryUsed.current)), highwater \(bytes(process.memoryUsed.highwater))")
        line("malloc count", "\(process.mallocCount.current) (highwater \(process.mallocCount.highwater))")
        line("largest malloc", bytes(process.mallocSize.highwater))
        line("page cache used", "\(process.pageCacheUsed.current) (overflow \(bytes(process.pageCacheOverflow.current)))")
    }

    /// The rows of a check, or SQLite's error when the check itself cannot run (a damaged page).
    private static func results(
        of sql: String, on connection: Connection,
        _ line: (Row) -> String
    ) -> Result<[String], SQLiteError> {
        do {
            return .success(try connection.query(sql) { line($0) })
        } catch let error as SQLiteError {
            return .failure(error)
        } catch {
            return .failure(SQLiteError(code: 1, message: "\(error)"))
        }
    }

    /// `12288 bytes (12.0 KiB)`.
    static func bytes(_ count: Int64) -> String {
        guard count >= 1024 else { return "\(count) bytes" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 { value /= 1024; unit += 1 }
        return "\(count) bytes (\(String(format: "%.1f", value)) \(units[unit]))"
    }
}
