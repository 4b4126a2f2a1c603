import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
import TodoKit

/// What the clients of a load run saw.
struct LoadTally: Sendable {
    var acknowledged: [Int64: String] = [:] // todos a 2xx POST returned
    var statuses: [Int: Int] = [:]
    var transportErrors = 0
    var busyBodies = 0
    var requests: Int { statuses.values.reduce(0, +) }
}

/// Runs `clientCount` keep-alive clients against `port` until `deadline`: about half creates, the
/// rest pages of the list, single todos and updates of todos the client created. Bounded in time
/// and in requests (each client waits for its answer before sending again), loopback only.
/// The clients' shared tally, behind a lock.
final class SharedTally: Sendable {
    let state = Mutex(LoadTally())
    func withLock<R: Sendable>(_ body: (inout LoadTally) -> R) -> R { state.withLock { body(&$0) } }
}

func runLoad(port: Int, clientCount: Int, until deadline: ContinuousClock.Instant, stopOnTransportError: Bool = false) async -> LoadTally {
    let tally = SharedTally()
    await withTaskGroup(of: Void.self) { group in
        for clientIndex in 0..<clientCount {
            group.addTask {
                let client = TestClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(30)))
                client.connect()
                defer { Task { try? await client.shutdown() } }
                var mine: [Int64] = []
                var step = 0
                while ContinuousClock.now < deadline {
                    step += 1
                    let choice = (step &* 7 &+ clientIndex) % 10
                    do {
                        let response: TestClient.Response
                        var createdTitle: String?
                        switch choice {
                        case 0..<5:
                            let title = "client \(clientIndex) todo \(step)"
                            createdTitle = title
                            response = try await send(client, .post, "/todos", body: #"{"title": "\#(title)"}"#)
                        case 5..<8:
                            response = try await send(client, .get, "/todos?limit=20&offset=\((step * 13) % 200)")
                        case 8:
                            response = try await send(client, .get, "/todos/\(mine.last ?? 1)")
                        default:
                            guard let id = mine.randomElement() else { continue }
                            response = try await send(client, .patch, "/todos/\(id)", body: #"{"completed": true}"#)
                        }
                        let code = response.status.code
                        let body = response.body.map { String(buffer: $0) } ?? ""
                        var created: Todo?
                        if let createdTitle, code == 201 {
                            created = try? decodeJSON(Todo.self, response.body)
                            if created?.title != createdTitle { created = nil }
                        }
                        if let id = created?.id { mine.append(id) }
                        tally.withLock { tally in
                            tally.statuses[code, default: 0] += 1
                            if body.localizedCaseInsensitiveContains("busy") || body.contains("SQLITE_BUSY") { tally.busyBodies += 1 }
                            if let created, let id = created.id { tally.acknowledged[id] = created.title }
                        }
                    } catch {
                        tally.withLock { $0.transportErrors += 1 }
                        if stopOnTransportError { return }
                        try? await Task.sleep(for: .milliseconds(20))
                    }
                }
            }
        }
    }
    return tally.withLock { $0 }
}

/// 64 clients for 20 seconds of mixed writes and reads: nothing lost, no 5xx, no SQLITE_BUSY.
@Suite struct LoadTests {
    @Test(.timeLimit(.minutes(3))) func sixtyFourClientsForTwentySecondsLoseNothing() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath
        let (app, _) = try makeApplication(path: path, logLevel: .error)
        let seconds = Int(ProcessInfo.processInfo.environment["TODO_LOAD_SECONDS"] ?? "") ?? 20
        let tally = try await app.test(.live) { client in
            let port = try #require(client.port)
            return await runLoad(port: port, clientCount: 64, until: .now + .seconds(seconds))
        }
        print(
            "load: \(tally.requests) requests in \(seconds) s, statuses \(tally.statuses.sorted { $0.key < $1.key }), transport errors \(tally.transportErrors)"
        )
        #expect(tally.requests > 64)
        #expect(tally.statuses.keys.allSatisfy { $0 < 500 }, "\(tally.statuses)")
        #expect(tally.busyBodies == 0)
        #expect(tally.transportErrors == 0)
        // Every acknowledged write is on disk, and nothing else is.
        let onDisk = try todosOnDisk(path)
        #expect(onDisk.count == tally.acknowledged.count)
        #expect(onDisk.count == tally.statuses[201, default: 0])
        for todo in onDisk {
            #expect(tally.acknowledged[todo.id ?? -1] == todo.title)
        }
    }
}
