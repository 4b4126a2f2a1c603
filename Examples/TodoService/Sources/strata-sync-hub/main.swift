// A StrataSync hub on a folder of spaces: `swift run --package-path Examples/TodoService
// strata-sync-hub FOLDER [PORT] [TOKEN]` (a space per `<name>.sqlite`; create one with
// `SyncHub.createSpace`, or `--create NAME "CREATE TABLE ..."`).
import Foundation
import Hummingbird
import Logging
import StrataServer
import StrataSync
import SyncHubKit

var arguments = Array(CommandLine.arguments.dropFirst())
guard let folder = arguments.first else {
    FileHandle.standardError.write(Data("usage: strata-sync-hub FOLDER [PORT] [TOKEN] [--create SPACE SQL]\n".utf8))
    exit(64)
}
arguments.removeFirst()
var create: (String, String)?
if let index = arguments.firstIndex(of: "--create") {
    guard index + 2 < arguments.count else {
        FileHandle.standardError.write(Data("--create needs a space name and its schema SQL\n".utf8))
        exit(64)
    }
    create = (arguments[index + 1], arguments[index + 2])
    arguments.removeSubrange(index...(index + 2))
}
let port = arguments.first.flatMap { Int($0) } ?? 8080
let token = arguments.dropFirst().first
var logger = Logger(label: "strata-sync-hub")
logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
// Every space's statements logged, measured and traced by StrataServer, as a service's database.
let instrumentation = StrataInstrumentation(logger: logger)
let hub = try SyncHub(directory: URL(fileURLWithPath: folder)) { connection in connection.instrument(instrumentation) }
if let (space, sql) = create { try hub.createSpace(space) { try $0.execute(sql) } }
let router = buildSyncHubRouter(hub: hub, requestLogLevel: .info) { given, _, _ in token.map { tokenMatches(given, $0) } ?? true }
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
// runService: ServiceLifecycle's graceful shutdown on SIGTERM and SIGINT (requests in flight end).
try await app.runService()
