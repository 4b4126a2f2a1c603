import Foundation
import Testing
@testable import Strata
#if canImport(SQLite3)
import SQLite3
#endif

final class Sum { var total: Int64 = 0 }
final class Token { let id: Int; init(_ id: Int) { self.id = id } }

@Suite struct FunctionTests {
    @Test func readmeStripUnicode() throws {
        let connection = try Connection()
        try connection.addScalarFunction(named: "strip_unicode", argumentCount: 1) { _, values in
            guard
                let value = values.first, value.isText,
                let valueData = value.text.data(using: .ascii, allowLossyConversion: true),
                let asciiValue = String(data: valueData, encoding: .ascii)
            else { return .null }
            return .text(asciiValue)
        }
        let sql = "SELECT strip_unicode(?)"
        let result1: String? = try connection.prepare(sql, "å").query()
        let result2: String? = try connection.prepare(sql, "ć").query()
        let result3: String? = try connection.prepare(sql, "áč").query()
        // Lossy ASCII conversion is Foundation's: Apple's strips diacritics ("a"), others may not.
        func lossyASCII(_ text: String) -> String? {
            text.data(using: .ascii, allowLossyConversion: true).flatMap { String(data: $0, encoding: .ascii) }
        }
        #expect(result1 == lossyASCII("å") && result2 == lossyASCII("ć") && result3 == lossyASCII("áč"))
        // The README's documented output, with a conversion that behaves the same everywhere.
        try connection.addScalarFunction(named: "strip_unicode", argumentCount: 1) { _, values in
            guard let value = values.first, value.isText else { return .null }
            return .text(value.text.folding(options: .diacriticInsensitive, locale: nil))
        }
        let folded: [String?] = try ["å", "ć", "áč"].map { try connection.prepare(sql, $0).query() }
        #expect(folded == ["a", "c", "ac"])
        let null: String? = try connection.prepare(sql, nil).query()
        #expect(null == nil)
    }

    @Test func resultsAndValues() throws {
        let db = try Connection()
        try db.addScalarFunction(named: "describe", argumentCount: -1, deterministic: true) { _, values in
            .text(values.map { value -> String in
                switch value.type {
                case .null: return "null:\(value.text)|\(value.data.count)"
                case .integer: return "int:\(value.integer):\(value.long)"
                case .double: return "double:\(value.double)"
                case .text: return "text:\(value.text):\(value.numericType == .integer)"
                case .data: return "data:\(value.buffer.count)"
                }
            }.joined(separator: ","))
        }
        #expect(try db.query("SELECT describe(NULL, 5, 1.5, '12', x'0102')") == "null:|0,int:5:5,double:1.5,text:12:true,data:2")
        try db.addScalarFunction(named: "make", argumentCount: 1) { _, values in
            switch values[0].long {
            case 0: return .null
            case 1: return .integer(7)
            case 2: return .long(Int64.max)
            case 3: return .double(2.5)
            case 4: return .data(Data([9, 8]))
            case 5: return .zeroData(4)
            case 6: return .date(Date(timeIntervalSince1970: 0))
            default: return .error(message: "bad input \(values[0].long)", code: SQLITE_CONSTRAINT)
            }
        }
        #expect(try db.query("SELECT typeof(make(0))") == "null")
        #expect(try db.query("SELECT make(1)") == 7)
        #expect(try db.query("SELECT make(2)") == Int64.max)
        #expect(try db.query("SELECT make(3)") == 2.5)
        #expect(try db.query("SELECT make(4)") == Data([9, 8]))
        #expect(try db.query("SELECT make(5)") == Data(count: 4))
        #expect(try db.query("SELECT make(6)") == "1970-01-01T00:00:00.000")
        let error = sqliteError { let _: Int? = try db.query("SELECT make(9)") }
        #expect(error?.message == "bad input 9")
        #expect(error?.code == SQLITE_CONSTRAINT)
        let defaultCode = sqliteError {
            try db.addScalarFunction(named: "fail", argumentCount: 0) { _, _ in .error(message: "nope", code: nil) }
            let _: Int? = try db.query("SELECT fail()")
        }
        #expect(defaultCode?.code == SQLITE_ERROR && defaultCode?.message == "nope")
        try db.removeFunction(named: "make", argumentCount: 1)
        #expect(sqliteError { let _: Int? = try db.query("SELECT make(1)") }?.message == "no such function: make")
    }

    @Test func auxilaryDataIsKeptForConstantArguments() throws {
        let db = try Connection()
        nonisolated(unsafe) var created = 0
        try db.addScalarFunction(named: "cached", argumentCount: 2) { context, values in
            if let token = context.auxilaryData[0] as? Token { return .long(Int64(token.id)) }
            created += 1
            context.auxilaryData[0] = Token(created)
            return .long(Int64(created) + 100 + values[1].long * 0)
        }
        let values: [Int] = try db.query("SELECT cached('p', x) FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3)")
        #expect(values.first == 101)
        #expect(values.dropFirst().allSatisfy { $0 == 1 })
    }

    @Test func aggregatesIncludingEmptyTables() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE t(v INTEGER)")
        try db.addAggregateFunction(
            named: "my_sum", argumentCount: 1,
            contextObjectFactory: { Sum() },
            stepFunction: { context, values in (context.stepObject as? Sum)?.total += values[0].long },
            finalFunction: { context in
                guard let sum = context.finalObject as? Sum else { return .null }
                return .long(sum.total)
            }
        )
        let empty: Int? = try db.query("SELECT my_sum(v) FROM t")
        #expect(empty == nil)
        try db.execute("INSERT INTO t VALUES(1), (2), (3), (NULL)")
        #expect(try db.query("SELECT my_sum(v) FROM t") == 6)
        let grouped: [Int] = try db.query("SELECT my_sum(v) FROM t GROUP BY v % 2 ORDER BY 1")
        #expect(grouped == [0, 2, 4]) // the NULL group steps once with NULL
    }
}

@Suite struct CollationAndHookTests {
    @Test func readmeNumericCollation() throws {
        let connection = try Connection()
        connection.createCollation(named: "NUMERIC") { lhs, rhs in
            lhs.compare(rhs, options: .numeric, locale: .autoupdatingCurrent)
        }
        // The README names the table `values`, a keyword SQLite rejects unquoted.
        try connection.execute("CREATE TABLE \"values\"(text TEXT COLLATE 'NUMERIC' NOT NULL)")
        let values = ["string 1", "string 21", "string 12", "string 11", "string 02"]
        try values.forEach { try connection.run("INSERT INTO \"values\"(text) VALUES(?)", $0) }
        let extractedValues: [String] = try connection.query("SELECT * FROM \"values\" ORDER BY text")
        #expect(extractedValues == ["string 1", "string 02", "string 11", "string 12", "string 21"])
        connection.createCollation(named: "NUMERIC") { lhs, rhs in rhs.compare(lhs) }
        let reversed: [String] = try connection.query("SELECT text FROM \"values\" ORDER BY text COLLATE NUMERIC")
        #expect(reversed.first == "string 21")
    }

    @Test func readmeHooks() throws {
        let connection = try Connection()
        try connection.execute("CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT)")
        var messages: [String] = []
        connection.updateHook { type, databaseName, tableName, rowID in
            var message = "\(type) row \(rowID)"
            if let databaseName { message += " on \(databaseName)" }
            if let tableName { message += ".\(tableName)" }
            messages.append(message)
        }
        try connection.execute("""
            INSERT INTO person(name) VALUES('Phil Knight');
            UPDATE person SET name = 'Bill Bowerman' WHERE id = 1;
            DELETE FROM person WHERE id = 1
            """)
        #expect(messages == ["insert row 1 on main.person", "update row 1 on main.person", "delete row 1 on main.person"])
        connection.updateHook(nil)
        try connection.execute("INSERT INTO person(name) VALUES('x')")
        #expect(messages.count == 3)

        var shouldCancelCommit = false
        var rollbacks = 0
        connection.commitHook { shouldCancelCommit }
        connection.rollbackHook { rollbacks += 1 }
        try connection.transaction { try connection.run("INSERT INTO person(name) VALUES('kept')") }
        shouldCancelCommit = true
        let error = sqliteError { try connection.transaction { try connection.run("INSERT INTO person(name) VALUES('dropped')") } }
        #expect(error?.code == SQLITE_CONSTRAINT)
        #expect(rollbacks == 1)
        #expect(try connection.query("SELECT count(*) FROM person WHERE name = 'dropped'") == 0)
        connection.commitHook(nil)
        connection.rollbackHook(nil)
        try connection.transaction { try connection.run("INSERT INTO person(name) VALUES('ok')") }
        #expect(connection.callbackBoxes.isEmpty)
    }

    @Test func readmeSelectOnlyAuthorizer() throws {
        let connection = try Connection()
        try connection.execute("CREATE TABLE t(a)")
        var seen: [Connection.AuthorizerAction] = []
        try connection.authorizer { action, _, _, _, _ in
            seen.append(action)
            guard action == .select else { return .deny }
            return .ok
        }
        #expect(try connection.query("SELECT 1") == 1)
        let denied = sqliteError { try connection.execute("CREATE TABLE u(b)") }
        #expect(denied?.code == SQLITE_AUTH)
        #expect(denied?.message == "not authorized")
        // Reading a column is a separate `.read` action, which this authorizer also denies.
        #expect(sqliteError { let _: Int? = try connection.query("SELECT a FROM t") }?.message == "access to t.a is prohibited")
        #expect(seen.contains(.read) && seen.contains(.insert))
        try connection.authorizer(nil)
        try connection.execute("CREATE TABLE u(b)")
        #expect(Connection.AuthorizerAction.allCases.count == 34)
        #expect(Connection.AuthorizerResult.custom(SQLITE_IGNORE) == .custom(2))
    }
}

@Suite struct BusyCheckpointBackupTests {
    @Test func busyTimeoutEndsInDatabaseIsLocked() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db")
        let writer = try Connection(storageLocation: .onDisk(path))
        try writer.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x)")
        try writer.execute("BEGIN IMMEDIATE; INSERT INTO t VALUES(1)")
        let other = try Connection(storageLocation: .onDisk(path))
        try other.busyHandler(.timeout(0.2))
        let start = Date()
        let error = sqliteError { try other.execute("INSERT INTO t VALUES(2)") }
        #expect(error?.code == SQLITE_BUSY)
        #expect(error?.message == "database is locked")
        #expect(Date().timeIntervalSince(start) >= 0.15)

        var attempts: [Int32] = []
        try other.busyHandler(.custom { count in attempts.append(count); return count < 3 })
        #expect(sqliteError { try other.execute("INSERT INTO t VALUES(2)") }?.code == SQLITE_BUSY)
        #expect(attempts == [0, 1, 2, 3])
        try other.busyHandler(.defaultBehavior)
        #expect(sqliteError { try other.execute("INSERT INTO t VALUES(2)") }?.code == SQLITE_BUSY)
        try writer.execute("COMMIT")
        try other.execute("INSERT INTO t VALUES(2)")
    }

    @Test func readmeCheckpointAndBlockedCheckpoint() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db")
        let connection = try Connection(storageLocation: .onDisk(path))
        try connection.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES(1)")
        try connection.busyHandler(.timeout(1.0))
        let checkpointResult = try connection.checkpoint(mode: .truncate)
        #expect(checkpointResult == Connection.CheckpointResult(logFrames: 0, checkpointedFrames: 0))
        try connection.execute("VACUUM")

        let reader = try Connection(storageLocation: .onDisk(path))
        try reader.execute("BEGIN")
        #expect(try reader.query("SELECT count(*) FROM t") == 1)
        try connection.execute("INSERT INTO t VALUES(2)")
        try connection.busyHandler(.timeout(0.1))
        let blocked = sqliteError { _ = try connection.checkpoint(mode: .truncate) }
        #expect(blocked?.code == SQLITE_BUSY)
        let passive = try connection.checkpoint(mode: .passive)
        #expect(passive.logFrames > 0)
        try reader.execute("COMMIT")
        let done = try connection.checkpoint(attachedDatabaseName: nil, mode: .full)
        #expect(done.logFrames == done.checkpointedFrames)
    }

    func waitForBackup(_ body: (@escaping (Connection.BackupResult) -> Void) throws -> Progress) throws -> (Connection.BackupResult?, Progress) {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Connection.BackupResult?
        let progress = try body { result in
            outcome = result
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        return (outcome, progress)
    }

    @Test func backupToSecondConnectionWhileWritten() throws {
        let directory = try TemporaryDirectory()
        let source = try Connection(storageLocation: .onDisk(directory.path("source")))
        try source.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x, payload BLOB)")
        try source.transaction {
            for index in 0..<2000 { try source.run("INSERT INTO t VALUES(?, ?)", index, Data(count: 512)) }
        }
        let writer = try Connection(storageLocation: .onDisk(directory.path("source")))
        let destination = try Connection(storageLocation: .onDisk(directory.path("copy")))
        let queue = DispatchQueue(label: "completion")
        nonisolated(unsafe) let sharedWriter = writer
        let stop = DispatchSemaphore(value: 0)
        let writing = Thread {
            var index = 2000
            while stop.wait(timeout: .now()) == .timedOut {
                try? sharedWriter.run("INSERT INTO t VALUES(?, ?)", index, Data(count: 512))
                index += 1
            }
        }
        writing.start()
        let (result, progress) = try waitForBackup { completion in
            try source.backup(to: destination, pageSize: 10, completionQueue: queue, completion: completion)
        }
        stop.signal()
        #expect(result?.isSuccess == true)
        #expect(progress.totalUnitCount > 0)
        #expect(progress.completedUnitCount == progress.totalUnitCount)
        #expect(try destination.query("PRAGMA integrity_check") == "ok")
        let copied: Int = try destination.query("SELECT count(*) FROM t") ?? 0
        let maxIndex: Int = try destination.query("SELECT max(x) FROM t") ?? -1
        #expect(copied >= 2000 && copied == maxIndex + 1)
    }

    @Test func cancelledBackupLeavesDestinationUsable() throws {
        let source = try Connection()
        try source.execute("CREATE TABLE t(payload BLOB)")
        for _ in 0..<200 { try source.run("INSERT INTO t VALUES(?)", Data(count: 4096)) }
        let destination = try Connection()
        let queue = DispatchQueue(label: "completion")
        let backupQueue = DispatchQueue(label: "backup")
        backupQueue.suspend()
        let (result, _) = try waitForBackup { completion in
            let progress = try source.backup(to: destination, pageSize: 1, backupQueue: backupQueue, completionQueue: queue, completion: completion)
            progress.cancel()
            backupQueue.resume()
            return progress
        }
        #expect(result?.isCancelled == true)
        try destination.execute("CREATE TABLE mine(x); INSERT INTO mine VALUES(1)")
        #expect(try destination.query("SELECT x FROM mine") == 1)
    }

    @Test func pausedBackupWaitsForResume() throws {
        let source = try Connection()
        try source.execute("CREATE TABLE t(payload BLOB)")
        for _ in 0..<50 { try source.run("INSERT INTO t VALUES(?)", Data(count: 4096)) }
        let destination = try Connection()
        let backupQueue = DispatchQueue(label: "backup")
        backupQueue.suspend()
        let (result, progress) = try waitForBackup { completion in
            let progress = try source.backup(to: destination, pageSize: 5, backupQueue: backupQueue, completionQueue: DispatchQueue(label: "c"), completion: completion)
            progress.pause()
            backupQueue.resume()
            Thread.sleep(forTimeInterval: 0.1)
            #expect(progress.completedUnitCount == 0)
            progress.resume()
            return progress
        }
        #expect(result?.isSuccess == true)
        #expect(progress.completedUnitCount == progress.totalUnitCount && progress.totalUnitCount > 50)
        #expect(try destination.query("SELECT count(*) FROM t") == 50)
    }

    @Test func backupOntoItselfThrows() throws {
        let connection = try Connection()
        let error = sqliteError { try connection.backup(to: connection) { _ in } }
        #expect(error != nil)
        #expect(error?.message.contains("distinct") == true)
        let unknown = sqliteError { try connection.backup(databaseNamed: "nope", to: Connection()) { _ in } }
        #expect(unknown?.message.contains("unknown database") == true)
    }
}
