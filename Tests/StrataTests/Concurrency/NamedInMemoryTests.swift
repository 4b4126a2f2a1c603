import Foundation
import StrataSQift
import Strata
import Testing

@Suite struct NamedInMemoryTests {
    private func uniqueName(_ base: String) -> String { "\(base)-\(UUID().uuidString)" }

    @Test func aDatabaseWritesOnItsWriterAndReadsOnItsReaders() async throws {
        let database = try Database(storageLocation: .namedInMemory(uniqueName("shared")))
        try database.executeWrite { connection in
            try connection.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT)")
            try connection.run("INSERT INTO cars(name) VALUES('Audi'), ('Volvo')")
        }
        let names: [String] = try database.executeRead { connection in
            #expect(connection.readOnly)
            return try connection.query("SELECT name FROM cars ORDER BY id")
        }
        #expect(names == ["Audi", "Volvo"])
        // Parallel async readers while the writer keeps writing.
        try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for index in 0..<50 { try await database.write { try $0.run("INSERT INTO cars(name) VALUES(?)", "car \(index)") } }
                return 0
            }
            for _ in 0..<4 {
                group.addTask {
                    var last = 0
                    for _ in 0..<20 { last = try await database.read { try $0.query("SELECT count(*) FROM cars") ?? 0 } }
                    return last
                }
            }
            for try await count in group { #expect(count == 0 || count >= 2) }
        }
        let total: Int = try database.executeRead { try $0.query("SELECT count(*) FROM cars") ?? 0 }
        #expect(total == 52)
        // Asking for WAL does not fail: a memory database stays in its own journal mode.
        let mode: String? = try database.executeWrite { try $0.query("PRAGMA journal_mode = WAL") }
        #expect(mode == "memory")
    }

    @Test func sameNameSharesDifferentNamesIsolateAndTheLastCloseDrops() throws {
        let name = uniqueName("a b/c?d&e%")
        var first: Database? = try Database(storageLocation: .namedInMemory(name))
        try first?.executeWrite { try $0.execute("CREATE TABLE t(x); INSERT INTO t VALUES(42)") }
        var second: Database? = try Database(storageLocation: .namedInMemory(name))
        let seen: Int? = try second?.executeRead { try $0.query("SELECT x FROM t") }
        #expect(seen == 42)
        let plain = try Connection(storageLocation: .namedInMemory(name))
        let viaConnection: Int? = try plain.query("SELECT x FROM t")
        #expect(viaConnection == 42)

        let other = try Connection(storageLocation: .namedInMemory(uniqueName("other")))
        let tables: Int? = try other.query("SELECT count(*) FROM sqlite_master")
        #expect(tables == 0)

        // The data lives while any connection to the name is open.
        first = nil
        second = nil
        let still: Int? = try plain.query("SELECT x FROM t")
        #expect(still == 42)
    }

    @Test func dataDisappearsWhenTheLastConnectionCloses() throws {
        let name = uniqueName("gone")
        do {
            let writer = try Connection(storageLocation: .namedInMemory(name))
            try writer.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1)")
            let reader = try Connection(storageLocation: .namedInMemory(name))
            let value: Int? = try reader.query("SELECT x FROM t")
            #expect(value == 1)
        }
        let fresh = try Connection(storageLocation: .namedInMemory(name))
        let tables: Int? = try fresh.query("SELECT count(*) FROM sqlite_master")
        #expect(tables == 0)
    }

    @Test func theLocationIsAMemdbURI() {
        #expect(StorageLocation.namedInMemory("x").path == "file:/x?vfs=memdb")
        #expect(StorageLocation.namedInMemory("a b?&").path == "file:/a%20b%3F%26?vfs=memdb")
    }
}
