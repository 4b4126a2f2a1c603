import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLiteNIO
import Synchronization

/// The same todos on sqlite-nio (Vapor's SQLite driver), for the HTTP benchmark: one writer
/// connection and a few readers, WAL, every change one statement (`RETURNING`), since sqlite-nio
/// has no connection pool or transaction scope of its own to share a connection safely. A
/// snapshot list (``ListConsistency/snapshot``) takes a reader for itself while its transaction
/// runs: a `BEGIN` on a connection other requests share would take them into its transaction.
public final class NIOTodoStore: TodoStore {
    let writer: SQLiteConnection
    let readers: [SQLiteConnection]
    let next = Mutex(0)
    let exclusiveReaders: ExclusiveReaders
    /// How ``list(limit:offset:)`` reads the page and the total.
    public let listConsistency: ListConsistency

    /// Opens `path` (its schema made by ``StrataTodoStore`` beforehand, so both are alike).
    public static func open(
        path: String, readerCount: Int = 2, listConsistency: ListConsistency = .separate,
        logger: Logger
    ) async throws -> NIOTodoStore {
        let writer = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        _ = try await writer.query("PRAGMA journal_mode = WAL")
        _ = try await writer.query("PRAGMA busy_timeout = 5000")
        var readers: [SQLiteConnection] = []
        for _ in 0..<max(1, readerCount) {
            let reader = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
            _ = try await reader.query("PRAGMA busy_timeout = 5000")
            readers.append(reader)
        }
        return NIOTodoStore(writer: writer, readers: readers, listConsistency: listConsistency)
    }

    init(writer: SQLiteConnection, readers: [SQLiteConnection], listConsistency: ListConsistency) {
        self.writer = writer
        self.readers = readers
        self.listConsistency = listConsistency
        exclusiveReaders = ExclusiveReaders(readers)
    }

    /// Closes every connection.
    public func close() async throws {
        for reader in readers { try await reader.close() }
        try await writer.close()
    }

    /// Runs `body` on a reader. With snapshot lists every read takes its reader for itself, as
    /// those lists do: a read on a connection inside another request's `BEGIN` would see that
    /// transaction's older snapshot. Without them, reads share the readers in turn.
    func withReader<T>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        guard listConsistency == .snapshot else {
            let index = next.withLock { value in
                value &+= 1
                return value
            }
            return try await body(readers[index % readers.count])
        }
        let connection = await exclusiveReaders.checkOut()
        defer { exclusiveReaders.checkIn(connection) }
        return try await body(connection)
    }

    static func todo(_ row: SQLiteRow) -> Todo? {
        guard let id = row.column("id")?.integer, let title = row.column("title")?.string else { return nil }
        return Todo(id: Int64(id), title: title, completed: (row.column("completed")?.integer ?? 0) != 0)
    }

    public func create(title: String, completed: Bool) async throws -> Todo {
        let rows = try await writer.query(
            #"INSERT INTO "todo" ("title", "completed") VALUES (?, ?) RETURNING "id", "title", "completed""#,
            [.text(title), .integer(completed ? 1 : 0)])
        guard let todo = rows.first.flatMap(Self.todo) else { throw NIOTodoStoreError.noRowReturned }
        return todo
    }

    public func list(limit: Int, offset: Int) async throws -> TodoPage {
        try await withReader { connection in
            guard listConsistency == .snapshot else { return try await page(on: connection, limit: limit, offset: offset) }
            _ = try await connection.query("BEGIN")
            do {
                let page = try await page(on: connection, limit: limit, offset: offset)
                _ = try await connection.query("COMMIT")
                return page
            } catch {
                _ = try? await connection.query("ROLLBACK")
                throw error
            }
        }
    }

    func page(on connection: SQLiteConnection, limit: Int, offset: Int) async throws -> TodoPage {
        let rows = try await connection.query(
            #"SELECT "id", "title", "completed" FROM "todo" ORDER BY "id" LIMIT ? OFFSET ?"#,
            [.integer(limit), .integer(offset)])
        let count = try await connection.query(#"SELECT count(*) AS "n" FROM "todo""#)
        return TodoPage(
            items: rows.compactMap(Self.todo), total: Int(count.first?.column("n")?.integer ?? 0),
            limit: limit, offset: offset)
    }

    public func todo(id: Int64) async throws -> Todo? {
        let rows = try await withReader { try await $0.query(#"SELECT "id", "title", "completed" FROM "todo" WHERE "id" = ?"#, [.integer(Int(id))]) }
        return rows.first.flatMap(Self.todo)
    }

    public func update(id: Int64, title: String?, completed: Bool?) async throws -> Todo? {
        let rows = try await writer.query(
            #"UPDATE "todo" SET "title" = coalesce(?, "title"), "completed" = coalesce(?, "completed") WHERE "id" = ? RETURNING "id", "title", "completed""#,
            [title.map { .text($0) } ?? .null, completed.map { .integer($0 ? 1 : 0) } ?? .null, .integer(Int(id))])
        return rows.first.flatMap(Self.todo)
    }

    public func delete(id: Int64) async throws -> Bool {
        let rows = try await writer.query(#"DELETE FROM "todo" WHERE "id" = ? RETURNING "id""#, [.integer(Int(id))])
        return !rows.isEmpty
    }

    public func search(_ text: String, limit: Int) async throws -> [Todo] {
        let words = text.split(whereSeparator: { !$0.isLetter && !$0.isNumber })
        guard !words.isEmpty else { return [] }
        let pattern = words.map { "\"" + $0 + "\"" }.joined(separator: " ")
        let rows = try await withReader { reader in
            try await reader.query(
                #"SELECT "todo"."id", "todo"."title", "todo"."completed" FROM "todo_search" JOIN "todo" ON "todo"."id" = "todo_search"."rowid" WHERE "todo_search" MATCH ? ORDER BY rank LIMIT ?"#,
                [.text(pattern), .integer(limit)])
        }
        return rows.compactMap(Self.todo)
    }

    public func checkHealth() async throws {
        _ = try await withReader { try await $0.query("SELECT 1") }
    }
}

/// Readers lent to one caller at a time; a caller finding none free waits, in arrival order.
final class ExclusiveReaders: Sendable {
    private struct State {
        var free: [SQLiteConnection]
        var waiting: [CheckedContinuation<SQLiteConnection, Never>] = []
    }
    private let state: Mutex<State>

    init(_ readers: [SQLiteConnection]) { state = Mutex(State(free: readers)) }

    func checkOut() async -> SQLiteConnection {
        await withCheckedContinuation { continuation in
            let connection = state.withLock { state -> SQLiteConnection? in
                guard let connection = state.free.popLast() else {
                    state.waiting.append(continuation)
                    return nil
                }
                return connection
            }
            if let connection { continuation.resume(returning: connection) }
        }
    }

    func checkIn(_ connection: SQLiteConnection) {
        let waiter = state.withLock { state -> CheckedContinuation<SQLiteConnection, Never>? in
            guard !state.waiting.isEmpty else {
                state.free.append(connection)
                return nil
            }
            return state.waiting.removeFirst()
        }
        waiter?.resume(returning: connection)
    }
}

/// What only the sqlite-nio store throws.
public enum NIOTodoStoreError: Error {
    /// A statement with `RETURNING` returned nothing.
    case noRowReturned
}
