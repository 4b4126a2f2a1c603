import Foundation
import StrataSQift
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Strata
import StrataServer
import TodoKit

/// A directory of its own for each test, removed afterwards.
struct TemporaryDirectory: ~Copyable {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("todo-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    var databasePath: String { url.appendingPathComponent("todos.sqlite").path }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// The service as the tests run it: the Strata store on a fresh file, the database as a service
/// of the application, on a free loopback port.
func makeApplication(path: String, logLevel: Logger.Level = .warning) throws -> (some ApplicationProtocol, StrataTodoStore) {
    var logger = Logger(label: "TodoServiceTests")
    logger.logLevel = logLevel
    let store = try StrataTodoStore(path: path, instrumentation: StrataInstrumentation(logger: logger))
    let app = buildApplication(
        store: store, host: "127.0.0.1", port: 0,
        services: [DatabaseService(store.database, logger: logger)], logger: logger)
    return (app, store)
}

func jsonBody(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

func decodeJSON<T: Decodable>(_ type: T.Type, _ buffer: ByteBuffer?) throws -> T {
    try JSONDecoder().decode(type, from: Data(buffer.map { Array($0.readableBytesView) } ?? []))
}

/// One HTTP exchange on a client's keep-alive connection.
func send(_ client: TestClient, _ method: HTTPRequest.Method, _ uri: String, body: String? = nil) async throws -> TestClient.Response {
    var headers: HTTPFields = [.connection: "keep-alive"]
    if body != nil { headers[.contentType] = "application/json" }
    let request = TestClient.Request(uri, method: method, authority: "127.0.0.1", headers: headers, body: body.map(jsonBody))
    return try await client.execute(request)
}

/// Every todo in the file, read with a connection of its own (not the service's).
func todosOnDisk(_ path: String) throws -> [Todo] {
    let connection = try Connection(storageLocation: .onDisk(path), readOnly: true)
    return try Todo.order(by: \.id).fetchAll(connection)
}
