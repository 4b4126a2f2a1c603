import Foundation
import StrataSQift
import StrataTestSupport
import Testing

/// SQift's two read-blocks-write tests, made deterministic: they expected a read of 5,000 rows to
/// still hold its shared-cache table lock when a write started 0.1 s later, and Strata's read ends
/// sooner. Here the read is held open by a statement stepped once.
@Suite struct TableLockPolicyHeldReadTests {
    static func pair(_ policy: TableLockPolicy, in directory: TemporaryDirectory) throws -> (writer: Connection, reader: Connection) {
        let location = StorageLocation.onDisk(directory.path("shared.sqlite"))
        let writer = try Connection(storageLocation: location, tableLockPolicy: policy, sharedCache: true)
        let reader = try Connection(storageLocation: location, tableLockPolicy: policy, readOnly: true, sharedCache: true)
        try writer.execute("CREATE TABLE agents(id INTEGER PRIMARY KEY, name TEXT)")
        for id in 1...100 { try writer.run("INSERT INTO agents(name) VALUES(?)", "agent \(id)") }
        return (writer, reader)
    }

    @Test func aHeldReadMakesAFastFailWriteThrowLockedAndFreesItWhenDone() throws {
        let directory = try TemporaryDirectory()
        let (writer, reader) = try Self.pair(.fastFail, in: directory)
        let read = try Statement(connection: reader, sql: "SELECT * FROM agents")
        #expect(try read.step())
        let error = #expect(throws: SQLiteError.self) { try writer.run("INSERT INTO agents(name) VALUES(?)", "late") }
        #expect(error?.resultCode.primary == .locked)
        #expect(try writer.query("SELECT count(*) FROM agents") as Int? == 100)
        while try read.step() {} // read to the end: the statement no longer holds the table
        try writer.run("INSERT INTO agents(name) VALUES(?)", "after")
        #expect(try reader.query("SELECT count(*) FROM agents") as Int? == 101)
    }

    @Test func aPollingWriteWaitsForTheHeldReadToEnd() throws {
        let directory = try TemporaryDirectory()
        let (writer, reader) = try Self.pair(.poll(0.005), in: directory)
        let read = try Statement(connection: reader, sql: "SELECT * FROM agents")
        #expect(try read.step())
        let released = DispatchSemaphore(value: 0)
        // Handed over: only the closure touches the statement from here on.
        nonisolated(unsafe) let held = read
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) {
            while (try? held.step()) == true {}
            released.signal()
        }
        try writer.run("INSERT INTO agents(name) VALUES(?)", "waited")
        #expect(released.wait(timeout: .now()) == .success)
        #expect(try writer.query("SELECT count(*) FROM agents") as Int? == 101)
    }
}
