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
