// What a differential test compares: a database's schema, every row of every user table with
// its exact storage class and bytes, and the header fields apps keep state in.
import Foundation
import StrataSQift
import Strata
#if canImport(SQLite3)
import SQLite3
#endif

/// A canonical picture of a database's content, equal for two databases exactly when they hold
/// the same schema text, the same rows (same storage classes, same bits) and header fields.
/// Names and schema text compare by their UTF-8 bytes, as SQLite does: `é` and `e` + U+0301 are
/// different tables, which Swift's `String` equality would call the same.
public struct DatabaseSnapshot: Equatable, CustomStringConvertible {
    /// `type|name|tbl_name|sql` of every schema object, sorted by bytes (rootpage left out).
    public var schema: [String] = []
    /// Each table's rows (rowid first where it has one), each row canonical, sorted; keyed by the
    /// table name's bytes in hex, then the name.
    public var rows: [String: [String]] = [:]

    public static func == (a: DatabaseSnapshot, b: DatabaseSnapshot) -> Bool {
        a.schema.count == b.schema.count && zip(a.schema, b.schema).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
            && a.rows == b.rows && a.userVersion == b.userVersion && a.applicationID == b.applicationID && a.foreignKeys == b.foreignKeys
    }

    /// The key of a table's rows: its name's bytes (exact), then the name (readable).
    public static func key(_ name: String) -> String {
        name.utf8.map { String(format: "%02x", $0) }.joined() + " " + name
    }
    public var userVersion: Int64 = 0
    public var applicationID: Int64 = 0
    /// The connection's `foreign_keys` setting, which a failed schema change must also restore.
    public var foreignKeys: Int64 = 0

    public var description: String {
        var text = "user_version=\(userVersion) application_id=\(applicationID) foreign_keys=\(foreignKeys)\n"
        for line in schema { text += "  schema: \(line.debugDescription)\n" }
        for (table, rows) in rows.sorted(by: { $0.key < $1.key }) {
            text += "  \(table.debugDescription): \(rows.count) rows\n"
            for row in rows.prefix(20) { text += "    \(row)\n" }
        }
        return text
    }

    /// Reads `connection`'s main database. `tables` limits the rows read (all tables by default,
    /// shadow tables of virtual tables included, since they are where an index lives).
    public init(_ connection: Connection, tables: [String]? = nil) throws {
        let handle = connection.handle
        schema = try Self.strings(handle, "SELECT type || '|' || name || '|' || tbl_name || '|' || coalesce(sql, '') FROM main.sqlite_master")
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }

        let tableSQL = try Self.rows(handle, "SELECT name, sql FROM main.sqlite_master WHERE type = 'table'", canonical: false, columns: 2)
        let names = tables ?? tableSQL.map { $0[0] }
        for name in names {
            let quotedName = "\"" + String(decoding: name.utf8.flatMap { $0 == UInt8(ascii: "\"") ? [$0, $0] : [$0] }, as: UTF8.self) + "\""
            let sql = (tableSQL.first { $0[0].utf8.elementsEqual(name.utf8) }?[1] ?? "").uppercased()
            // sqlite_sequence's rowids are an accident of creation order, not content.
            let withoutRowID = sql.contains("WITHOUT ROWID") || sql.contains("WITHOUT\nROWID") || name == "sqlite_sequence"
            let select = withoutRowID ? "SELECT * FROM main.\(quotedName)" : "SELECT _rowid_, * FROM main.\(quotedName)"
            let canonical = try (try? Self.rows(handle, select)) ?? Self.rows(handle, "SELECT * FROM main.\(quotedName)")
            rows[Self.key(name)] = canonical.map { $0.joined(separator: " ") }.sorted()
        }
        userVersion = try Self.strings(handle, "PRAGMA main.user_version").first.flatMap { Int64($0) } ?? 0
        applicationID = try Self.strings(handle, "PRAGMA main.application_id").first.flatMap { Int64($0) } ?? 0
        foreignKeys = try Self.strings(handle, "PRAGMA foreign_keys").first.flatMap { Int64($0) } ?? 0
    }

    /// Opens the file at `path` and reads it.
    public init(path: String) throws {
        let connection = try Connection(storageLocation: .onDisk(path))
        try self.init(connection)
    }

    static func strings(_ handle: OpaquePointer, _ sql: String) throws -> [String] {
        try rows(handle, sql, canonical: false).map { $0[0] }
    }

    /// Each row as `i:…`, `r:<bit pattern>`, `t:<hex bytes>`, `b:<hex bytes>`, `n`, joined by
    /// spaces; or, when `canonical` is false, the first column's text.
    static func rows(_ handle: OpaquePointer, _ sql: String, canonical: Bool = true, columns: Int32 = 1) throws -> [[String]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw PropertyViolation("cannot prepare \(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        defer { sqlite3_finalize(statement) }
        var result: [[String]] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw PropertyViolation("cannot step \(sql): \(String(cString: sqlite3_errmsg(handle)))") }
            if !canonical {
                result.append((0..<columns).map { sqlite3_column_text(statement, $0).map { String(cString: $0) } ?? "" })
                continue
            }
            var fields: [String] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: fields.append("i:\(sqlite3_column_int64(statement, column))")
                case SQLITE_FLOAT: fields.append("r:" + String(sqlite3_column_double(statement, column).bitPattern, radix: 16))
                case SQLITE_TEXT:
                    let bytes = UnsafeRawBufferPointer(start: sqlite3_column_text(statement, column), count: Int(sqlite3_column_bytes(statement, column)))
                    fields.append("t:" + bytes.map { String(format: "%02x", $0) }.joined())
                case SQLITE_BLOB:
                    let bytes = UnsafeRawBufferPointer(start: sqlite3_column_blob(statement, column), count: Int(sqlite3_column_bytes(statement, column)))
                    fields.append("b:" + bytes.map { String(format: "%02x", $0) }.joined())
                default: fields.append("n")
                }
            }
            result.append(fields)
        }
        return result
    }
}

/// Runs SQLite's own shell (`sqlite3`) on a database file, the anchor of the differential tests.
public enum SQLiteShell {
    /// The shell's path, or nil when it is not installed (.ci/run installs it).
    public static var path: String? {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        return nil // no child processes there
        #else
        return ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/opt/homebrew/bin/sqlite3"].first { FileManager.default.isExecutableFile(atPath: $0) }
        #endif
    }

    /// The version of the shell's own SQLite ("3.40.1"), or nil without a shell. It differs from
    /// the library a test run loaded on CI's second pass (SQLite 3.54 through LD_LIBRARY_PATH).
    public static let version: String? = {
        guard let result = try? run(database: ":memory:", arguments: ["SELECT sqlite_version()"]), result.status == 0 else { return nil }
        return String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }()

    /// Runs `sqlite3 <database> <arguments>` with `input` on standard input; returns standard
    /// output, standard error and the exit status.
    @discardableResult
    public static func run(database: String, arguments: [String] = [], input: Data = Data()) throws -> (output: Data, error: String, status: Int32) {
        guard let path else { throw PropertyViolation("the sqlite3 shell is not installed") }
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        throw PropertyViolation("no child processes on \(path)")
        #else
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-batch", database] + arguments
        // The shell is SQLite's own, the oracle: never through the fault VFS a test run preloads
        // (whose early initialization also makes the shell print warnings into its output).
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = nil
        environment["STRATA_FAULT_VFS"] = nil
        // Nor through the library a run loads in place of the system one (CI's second pass sets
        // LD_LIBRARY_PATH to SQLite 3.54): the shell checks that the library is the one its header
        // came from and exits 1 ("SQLite header and source version mismatch") on any other.
        environment["LD_LIBRARY_PATH"] = nil
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Input and output through files would be simpler; pipes with a writer thread keep
        // large dumps from deadlocking on a full pipe.
        let writer = Thread {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let errorReader = ErrorCollector(stderr.fileHandleForReading)
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (output, errorReader.finish(), process.terminationStatus)
        #endif
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class ErrorCollector: @unchecked Sendable {
    // Written once by the reading thread before `done` is signalled, read after: the semaphore orders them.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
        thread.start()
    }

    func finish() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
