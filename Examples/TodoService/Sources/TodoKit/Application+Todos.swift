import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Strata
import StrataServer

/// The service's request context: bodies over 64 KiB are refused (413) before they are decoded.
public struct TodoRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public init(source: ApplicationRequestContextSource) { coreContext = .init(source: source) }
    /// A todo is a title and a flag: 64 KiB is generous.
    public var maxUploadSize: Int { 64 * 1024 }
}

/// The routes:
/// - `GET /health`
/// - `POST /todos` `{"title": …, "completed": …}` → 201 and the todo
/// - `GET /todos?limit=&offset=` → a page (limit 1…100, default 20)
/// - `GET /todos/search?q=&limit=` → todos whose title has every word, best first
/// - `GET`, `PATCH`, `DELETE /todos/:id`
public func buildRouter(store: some TodoStore) -> Router<TodoRequestContext> {
    let router = Router(context: TodoRequestContext.self)
    router.add(middleware: DatabaseErrorMiddleware())
    router.get("health") { _, _ -> HealthStatus in
        try await store.checkHealth()
        return HealthStatus(status: "ok")
    }
    let todos = router.group("todos")
    todos.post { request, context -> EditedResponse<Todo> in
        let new = try await decode(NewTodo.self, request, context)
        let todo = try await store.create(title: try TodoValidation.title(new.title), completed: new.completed ?? false)
        return EditedResponse(status: .created, response: todo)
    }
    todos.get { request, _ -> TodoPage in
        let limit = try queryInteger(request, "limit", default: 20, in: 1...100)
        let offset = try queryInteger(request, "offset", default: 0, in: 0...Int(Int32.max))
        return try await store.list(limit: limit, offset: offset)
    }
    todos.get("search") { request, _ -> SearchResults in
        guard let text = request.uri.queryParameters.get("q"), !text.isEmpty else {
            throw HTTPError(.badRequest, message: "missing query parameter q")
        }
        let limit = try queryInteger(request, "limit", default: 20, in: 1...100)
        return SearchResults(query: text, items: try await store.search(text, limit: limit))
    }
    todos.get(":id") { _, context -> Todo in
        guard let todo = try await store.todo(id: try todoID(context)) else { throw HTTPError(.notFound) }
        return todo
    }
    todos.patch(":id") { request, context -> Todo in
        let id = try todoID(context)
        let changes = try await decode(TodoChanges.self, request, context)
        let title = try changes.title.map(TodoValidation.title)
        guard let todo = try await store.update(id: id, title: title, completed: changes.completed) else {
            throw HTTPError(.notFound)
        }
        return todo
    }
    todos.delete(":id") { _, context -> HTTPResponse.Status in
        guard try await store.delete(id: try todoID(context)) else { throw HTTPError(.notFound) }
        return .noContent
    }
    return router
}

/// `GET /health`'s body.
public struct HealthStatus: Codable, Sendable, ResponseEncodable {
    public var status: String
}

/// The body as `T`. Hummingbird answers a body it cannot decode with a 400 that names the
/// missing or mistyped field, and one over the context's `maxUploadSize` with a 413.
func decode<T: Decodable>(_ type: T.Type, _ request: Request, _ context: TodoRequestContext) async throws -> T {
    try await request.decode(as: type, context: context)
}

func todoID(_ context: TodoRequestContext) throws -> Int64 {
    guard let text = context.parameters.get("id"), let id = Int64(text), id > 0 else {
        throw HTTPError(.badRequest, message: "the id must be a positive integer")
    }
    return id
}

func queryInteger(_ request: Request, _ name: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
    guard let text = request.uri.queryParameters.get(name) else { return value }
    guard let number = Int(text), range.contains(number) else {
        throw HTTPError(.badRequest, message: "\(name) must be an integer in \(range.lowerBound)...\(range.upperBound)")
    }
    return number
}

/// Database failures a client can do something about become 503 with a `Retry-After`, never a
/// 500 with SQLite's words: a busy or locked database (it should not happen: one writer queues
/// every write) and a database shutting down. The rest are logged, and answered with a plain 500.
struct DatabaseErrorMiddleware: RouterMiddleware {
    typealias Context = TodoRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch is DatabaseShutdownError {
            throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "1"], message: "the service is shutting down")
        } catch let error as SQLiteError where error.resultCode.primary == .busy || error.resultCode.primary == .locked {
            context.logger.warning("database busy", metadata: ["error.message": "\(error.message)"])
            throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "1"], message: "the database is busy")
        } catch let error as SQLiteError {
            context.logger.error("database error", metadata: ["error.message": "\(error.message)", "db.sqlite.code": "\(error.code)"])
            throw HTTPError(.internalServerError)
        }
    }
}

/// The HTTP application: `store`'s routes on `host:port`, and `services` (the database) run and
/// shut down with it. Put the database first: a `ServiceGroup` stops its services last to first,
/// so the server stops taking requests and drains them before the database closes.
public func buildApplication(
    store: some TodoStore, host: String = "127.0.0.1", port: Int = 8080,
    services: [any Service] = [], logger: Logger
) -> some ApplicationProtocol {
    Application(
        router: buildRouter(store: store),
        configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "TodoService"),
        services: services,
        logger: logger
    )
}
