import Foundation

/// What the routes need from a database. ``StrataTodoStore`` is the service; ``NIOTodoStore``
/// runs the same statements on sqlite-nio, for the HTTP benchmark.
public protocol TodoStore: Sendable {
    /// Adds a todo whose title was validated; returns it with its id.
    func create(title: String, completed: Bool) async throws -> Todo
    /// Todos ordered by id, and how many there are in all.
    func list(limit: Int, offset: Int) async throws -> TodoPage
    /// The todo, or nil.
    func todo(id: Int64) async throws -> Todo?
    /// Applies `changes` (title already validated); nil when no such todo.
    func update(id: Int64, title: String?, completed: Bool?) async throws -> Todo?
    /// Whether a todo was deleted.
    func delete(id: Int64) async throws -> Bool
    /// Todos whose title has every word of `text`, best match first.
    func search(_ text: String, limit: Int) async throws -> [Todo]
    /// Throws when the database cannot answer a query.
    func checkHealth() async throws
}

/// How `GET /todos` reads a page and the total, so that both stores can be measured doing the
/// same work.
public enum ListConsistency: String, Sendable, CaseIterable {
    /// The page and the total in one read transaction: they agree, whatever commits meanwhile.
    case snapshot
    /// Two statements on one connection, each seeing what was committed when it started (the
    /// sqlite-nio store; the Strata store's reads are always one snapshot, so there it reads as
    /// `.snapshot` does).
    case separate
}

/// Where the Strata store runs its reads, so that both can be measured.
public enum StrataReads: String, Sendable, CaseIterable {
    /// On the request's own thread (`Database.readOnCallingThread`): no trip to a reader's
    /// queue and back, which for a short read costs more than the read.
    case callingThread = "calling-thread"
    /// On the reader's dispatch queue (`Database.read`), leaving the request's thread free.
    case readerQueue = "reader-queue"
}
