// strata-replica-reader: the reader process of the read-replica test. litestream-vfs reads its
// replica URL from the environment a process starts with, so the test starts this process with
// LITESTREAM_REPLICA_URL set, and it opens `Database(replicaOf:litestreamVFS:)` on that URL. It
// then answers one line per command read from standard input:
//   read SQL       the first column of the first row, as text ("null" for none)
//   write SQL      "ok", or the error executeWrite threw
//   async-write SQL / async-transaction SQL   the same through write(_:) and writeInTransaction
//   raw-write SQL  the same on the writer connection itself, past Database's check
//   parallel SQL   four concurrent async reads, comma-separated
//   other          opens an unrelated in-memory connection and answers SELECT 42
//   replica URL    opens another replica Database: "ok" or the error
//   observe-until VALUE SQL   observes SQL (polling for external changes every 100 ms) until it
//                  yields VALUE: "seen VALUE after N values", or "timeout" after 15 s
// Errors are printed as "error: <description>".
import Foundation
import StrataSQift
import Strata

func say(_ line: String) {
    // Newlines replaced on bytes: a Character-level replace misses a "\n" a combining mark follows.
    var bytes = Array(line.utf8).map { $0 == UInt8(ascii: "\n") ? UInt8(ascii: " ") : $0 }
    bytes.append(UInt8(ascii: "\n"))
    FileHandle.standardOutput.write(Data(bytes))
}

func text(_ error: Error) -> String { "error: \(error)" }

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: LITESTREAM_REPLICA_URL=URL strata-replica-reader LITESTREAM_VFS_PATH\n".utf8))
    exit(2)
}
let vfs = arguments[1]
let url = ProcessInfo.processInfo.environment["LITESTREAM_REPLICA_URL"] ?? ""

let replica: Database
do {
    replica = try Database(replicaOf: url, litestreamVFS: vfs)
    say("opened read-only=\(try replica.writerConnectionQueue.execute { $0.readOnly })")
} catch {
    say(text(error))
    exit(1)
}

/// The first column of the first row of `sql`, whatever its type, as text.
@Sendable func firstColumn(_ sql: String, on db: Connection) throws -> String {
    guard let row = try db.query(sql) as Row?, let value = row.value(at: 0) else { return "null" }
    return "\(value)"
}

func answer(_ command: Substring, _ sql: String) async -> String {
    do {
        switch command {
        case "read": return try replica.executeRead { try firstColumn(sql, on: $0) }
        case "write": try replica.executeWrite { try $0.execute(sql) }
        case "async-write": try await replica.write { try $0.execute(sql) }
        case "async-transaction": try await replica.writeInTransaction { try $0.execute(sql) }
        case "raw-write": try replica.writerConnectionQueue.execute { try $0.execute(sql) }
        case "parallel":
            return try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<4 { group.addTask { try await replica.read { try firstColumn(sql, on: $0) } } }
                return try await group.reduce(into: [String]()) { $0.append($1) }.joined(separator: ",")
            }
        case "other":
            let other = try Connection(storageLocation: .inMemory)
            return try firstColumn("SELECT 42", on: other)
        case "replica":
            _ = try Database(replicaOf: sql, litestreamVFS: vfs)
        case "observe-until":
            let parts = sql.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return "error: observe-until VALUE SQL" }
            let (wanted, query) = (parts[0], parts[1])
            let observation = replica.observe(externalChanges: .milliseconds(100)) { try firstColumn(query, on: $0) }
            return try await withThrowingTaskGroup(of: String.self) { group in
                group.addTask {
                    var count = 0
                    for try await value in observation {
                        count += 1
                        if value == wanted { return "seen \(value) after \(count) values" }
                    }
                    return "ended"
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(15))
                    return "timeout"
                }
                let first = try await group.next() ?? "ended"
                group.cancelAll()
                return first
            }
        default: return "error: unknown command \(command)"
        }
        return "ok"
    } catch {
        return text(error)
    }
}

while let line = readLine() {
    let parts = line.split(separator: " ", maxSplits: 1)
    guard let command = parts.first else { continue }
    say(await answer(command, parts.count > 1 ? String(parts[1]) : ""))
}
