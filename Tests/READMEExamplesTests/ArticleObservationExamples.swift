// swift-format-ignore-file
// (The README and article examples here are compared word for word; their layout is theirs.)
// The ObservingTheDatabase article's Swift blocks, word for word between `DOC:begin` markers. Its
// loops never end by themselves, so each runs in a task that is cancelled once it has printed what
// it must (cancelling the iterating task ends an observation, as the article says).
import Foundation
import Strata
import Testing

extension READMEExamples {
    @Test func observationArticleExamplesRun() async throws {
        // What a failure here leaves unread must not reach the next example's expectations.
        defer { _ = printed.take() }
        try await inNewFolder {
            let setup = try Database(path: "app.sqlite")
            try await setup.write { db in
                try db.execute("CREATE TABLE players(id INTEGER PRIMARY KEY, name TEXT, score INTEGER)")
                try db.execute("CREATE TABLE orders(id INTEGER PRIMARY KEY)")
                try db.run("INSERT INTO players(name, score) VALUES('Ann', 3), ('Bob', 9)")
            }
            try await setup.close()

            let counting = Task {
                // DOC:begin ObservingTheDatabase 1
                let database = try Database(path: "app.sqlite")

                for try await count in database.observe({ try $0.query("SELECT count(*) FROM players") as Int? ?? 0 }) {
                    print("players:", count)
                }
                // DOC:end
            }
            #expect(await printed.waitFor("players: 2"))
            counting.cancel()
            _ = await counting.result

            let database = try Database(path: "app.sqlite")
            let shown = PrintedLines()
            @Sendable func show(_ names: [String]) { shown.append("\(names)") }
            @Sendable func report(_ error: Error) { Issue.record(error) }
            // DOC:begin ObservingTheDatabase 2
            let token = database.observe({ try $0.query("SELECT name FROM players ORDER BY score DESC LIMIT 10") as [String] }) { result in
                switch result {
                case .success(let names): show(names)
                case .failure(let error): report(error)   // the observation has ended
                }
            }
            // later
            // DOC:end
            #expect(await shown.waitFor(#"["Bob", "Ann"]"#))
            // DOC:begin ObservingTheDatabase 2
            token.cancel()
            // DOC:end

            let watching = Task {
                // DOC:begin ObservingTheDatabase 3
                for try await orders in database.observe(externalChanges: .milliseconds(250), { try $0.query("SELECT count(*) FROM orders") as Int? ?? 0 }) {
                    print(orders)
                }
                // DOC:end
            }
            #expect(await printed.waitFor("0"))
            // Another process's commit, as far as this Database can tell: a connection of its own.
            let other = try Connection(path: "app.sqlite")
            // The first example's Database may be checkpointing as it closes, which holds off
            // writers for a moment: wait rather than fail with SQLITE_BUSY.
            try other.busyHandler(.timeout(10))
            try other.run("INSERT INTO orders DEFAULT VALUES")
            #expect(await printed.waitFor("1"))
            watching.cancel()
            _ = await watching.result
            try await database.close()
            _ = printed.take()
        }
    }
}
