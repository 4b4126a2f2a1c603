import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TodoKit

/// Each route over loopback (HummingbirdTesting's live mode: a real server on a real port).
@Suite struct RouteTests {
    @Test func healthAnswersOK() async throws {
        let directory = try TemporaryDirectory()
        let (app, _) = try makeApplication(path: directory.databasePath)
        try await app.test(.live) { client in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(response.status == .ok)
            #expect(try decodeJSON(HealthStatus.self, response.body).status == "ok")
        }
    }

    @Test func createListGetUpdateDeleteAndSearch() async throws {
        let directory = try TemporaryDirectory()
        let (app, _) = try makeApplication(path: directory.databasePath)
        try await app.test(.live) { client in
            var created: [Todo] = []
            for title in ["Buy oat milk", "Water the plants", "Call the plumber about the sink"] {
                let response = try await client.execute(
                    uri: "/todos", method: .post, headers: [.contentType: "application/json"],
                    body: jsonBody(#"{"title": "\#(title)"}"#))
                #expect(response.status == .created)
                created.append(try decodeJSON(Todo.self, response.body))
            }
            #expect(created.map(\.title) == ["Buy oat milk", "Water the plants", "Call the plumber about the sink"])
            #expect(Set(created.compactMap(\.id)).count == 3)

            let page = try decodeJSON(TodoPage.self, try await client.execute(uri: "/todos?limit=2&offset=1", method: .get).body)
            #expect(page.total == 3 && page.limit == 2 && page.offset == 1)
            #expect(page.items == Array(created[1...2]))

            let id = try #require(created[0].id)
            #expect(try decodeJSON(Todo.self, try await client.execute(uri: "/todos/\(id)", method: .get).body) == created[0])

            let patched = try await client.execute(
                uri: "/todos/\(id)", method: .patch, headers: [.contentType: "application/json"],
                body: jsonBody(#"{"completed": true}"#))
            #expect(patched.status == .ok)
            #expect(try decodeJSON(Todo.self, patched.body) == Todo(id: id, title: "Buy oat milk", completed: true))

            let search = try decodeJSON(SearchResults.self, try await client.execute(uri: "/todos/search?q=plumber%20sink", method: .get).body)
            #expect(search.items.map(\.title) == ["Call the plumber about the sink"])
            // The index follows updates (the FTS triggers).
            _ = try await client.execute(
                uri: "/todos/\(id)", method: .patch, headers: [.contentType: "application/json"],
                body: jsonBody(#"{"title": "Buy a sink plunger"}"#))
            let again = try decodeJSON(SearchResults.self, try await client.execute(uri: "/todos/search?q=sink", method: .get).body)
            #expect(Set(again.items.map(\.title)) == ["Call the plumber about the sink", "Buy a sink plunger"])

            #expect(try await client.execute(uri: "/todos/\(id)", method: .delete).status == .noContent)
            #expect(try await client.execute(uri: "/todos/\(id)", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/todos/\(id)", method: .delete).status == .notFound)
        }
        #expect(try todosOnDisk(directory.databasePath).map(\.title) == ["Water the plants", "Call the plumber about the sink"])
    }

    @Test func badInputGetsAClear4xxAndWritesNothing() async throws {
        let directory = try TemporaryDirectory()
        let (app, _) = try makeApplication(path: directory.databasePath)
        try await app.test(.live) { client in
            let json: HTTPFields = [.contentType: "application/json"]
            let cases: [(String, HTTPResponse.Status, String)] = [
                (#"{"title": "unterminated"#, .badRequest, "error"),
                (#"{"completed": true}"#, .badRequest, "`title` not found"),
                (#"{"title": 42}"#, .badRequest, "Type mismatch for `title`"),
                (#"["title"]"#, .badRequest, "Type mismatch"),
                (#"{"title": "   "}"#, .unprocessableContent, "must not be empty"),
                (#"{"title": "\#(String(repeating: "x", count: 501))"}"#, .unprocessableContent, "longer than 500")
            ]
            for (body, status, message) in cases {
                let response = try await client.execute(uri: "/todos", method: .post, headers: json, body: jsonBody(body))
                #expect(response.status == status, "\(body)")
                #expect(String(buffer: response.body).contains(message), "\(body): \(String(buffer: response.body))")
            }
            // A huge body is refused before it is decoded.
            let huge = #"{"title": ""# + String(repeating: "y", count: 1_000_000) + #""}"#
            #expect(try await client.execute(uri: "/todos", method: .post, headers: json, body: jsonBody(huge)).status == .contentTooLarge)
            #expect(try await client.execute(uri: "/todos/abc", method: .get).status == .badRequest)
            #expect(try await client.execute(uri: "/todos/-3", method: .delete).status == .badRequest)
            #expect(try await client.execute(uri: "/todos/999", method: .patch, headers: json, body: jsonBody(#"{"completed": true}"#)).status == .notFound)
            #expect(try await client.execute(uri: "/todos?limit=1000", method: .get).status == .badRequest)
            #expect(try await client.execute(uri: "/todos?offset=-1", method: .get).status == .badRequest)
            #expect(try await client.execute(uri: "/todos/search", method: .get).status == .badRequest)
            let page = try decodeJSON(TodoPage.self, try await client.execute(uri: "/todos", method: .get).body)
            #expect(page.total == 0 && page.items.isEmpty)
        }
        #expect(try todosOnDisk(directory.databasePath).isEmpty)
    }
}
