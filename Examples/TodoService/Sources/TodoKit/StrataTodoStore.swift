import Foundation
import Logging
import Strata
import StrataRecords
import StrataServer

/// Todos in a Strata `Database`: one writer, a pool of readers, WAL, and typed queries.
public struct StrataTodoStore: TodoStore {
    /// The database; run it as a `Service` (``database``) so shutdown checkpoints and closes it.
    public let database: Database
    /// How ``list(limit:offset:)`` reads the page and the total.
    public let listConsistency: ListConsistency
    /// Where the reads run.
    public let reads: StrataReads

    /// Opens (creating when needed) the database at `path` in WAL mode, with the schema.
    /// - Throws: `SQLiteError` when the file cannot be opened or the schema created.
    public init(
        path: String, instrumentation: StrataInstrumentation? = nil, listConsistency: ListConsistency = .snapshot,
        readerCount: Int = ConnectionPool.defaultMaximumConnectionCount, reads: StrataReads = .callingThread
    ) throws {
        self.listConsistency = listConsistency
        self.reads = reads
        var configuration = Database.Configuration()
        configuration.maximumReaderCount = readerCount
        database = try Database(path: path, configuration: configuration)
        if let instrumentation { database.instrument(instrumentation) }
        try database.write { db in
            let exists: Int = try db.query("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'todo_search'") ?? 0
            guard exists == 0 else { return }
            try Todo.createTable(db, ifNotExists: true)
            try TodoTitle.createFTS5Table(db, options: FTS5Options(content: .external(table: Todo.tableName, rowID: "id")))
        }
    }

    public func create(title: String, completed: Bool) async throws -> Todo {
        let todo = Todo(title: title, completed: completed)
        return try await database.write { try todo.inserted($0) }
    }

    public func list(limit: Int, offset: Int) async throws -> TodoPage {
        try await read { db in
            let page = {
                let items = try Todo.order(by: \.id).limit(limit, offset: offset).fetchAll(db)
                return TodoPage(items: items, total: try Todo.fetchCount(db), limit: limit, offset: offset)
            }
            // A Database's read is already one snapshot, so the page and its total agree in both
            // modes; `.separate` differs from `.snapshot` only in the sqlite-nio store.
            return try page()
        }
    }

    public func todo(id: Int64) async throws -> Todo? {
        try await read { try Todo.fetchOne($0, id: id) }
    }

    public func update(id: Int64, title: String?, completed: Bool?) async throws -> Todo? {
        try await database.writeInTransaction(transactionType: .immediate) { db in
            guard var todo = try Todo.fetchOne(db, id: id) else { return nil }
            if let title { todo.title = title }
            if let completed { todo.completed = completed }
            try todo.update(db)
            return todo
        }
    }

    public func delete(id: Int64) async throws -> Bool {
        try await database.write { db in try Todo.where { $0.id == id }.deleteAll(db) > 0 }
    }

    public func search(_ text: String, limit: Int) async throws -> [Todo] {
        guard let pattern = FTS5Pattern(matchingAllTokensIn: text) else { return [] }
        return try await read { db in
            // One statement, as the sqlite-nio store's: the matches joined to their todos, best first.
            try TodoTitle.matching(pattern).orderByRank()
                .join(Todo.self, on: { $0.id == $1.id })
                .limit(limit)
                .fetchAll(db)
                .map(\.1)
        }
    }

    /// Each route's reads are short (a row, a page, twenty matches), so by default they run on
    /// the request's thread and skip the trip to a reader's queue and back.
    private func read<T: Sendable>(_ closure: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        switch reads {
        case .callingThread: return try await database.readOnCallingThread(closure)
        case .readerQueue: return try await database.read(closure)
        }
    }

    public func checkHealth() async throws {
        let one: Int? = try await database.read { try $0.query("SELECT 1") }
        guard one == 1 else { throw SQLiteError(code: SQLiteResultCode.error.rawValue, message: "the health query returned no row") }
    }
}
