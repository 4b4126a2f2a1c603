import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

// Named result codes as Swift 5 client code matches them (as the README documents them), without
// `import SQLite3`, against the errors real statements throw.
@Suite struct ResultCodeSwift5Tests {
    func constrained() throws -> Connection {
        let db = try Connection()
        try db.execute(
            """
            PRAGMA foreign_keys = ON;
            CREATE TABLE team(code TEXT PRIMARY KEY);
            CREATE TABLE player(id INTEGER PRIMARY KEY, email TEXT UNIQUE, name TEXT NOT NULL,
                                score INTEGER CHECK (score >= 0), team TEXT REFERENCES team(code));
            INSERT INTO team VALUES ('red');
            INSERT INTO player VALUES (1, 'ann@example.com', 'Ann', 3, 'red');
            """)
        return db
    }

    func code(_ db: Connection, _ sql: String) -> SQLiteResultCode? {
        do {
            try db.execute(sql)
            return nil
        } catch let error as SQLiteError {
            return error.resultCode
        } catch {
            return nil
        }
    }

    @Test func spellings() throws {
        let db = try constrained()
        do {
            try db.run("INSERT INTO player(id, name) VALUES(?, ?)", 1, "Bob")
            Issue.record("expected a primary key error")
        } catch let error as SQLiteError {
            #expect(error.resultCode == .constraintPrimaryKey) // the extended code
            #expect(error.resultCode.primary == .constraint) // .constraint for .constraintPrimaryKey
            #expect(error.code == 19) // SQift's `code: Int32` as it was
            #expect(error.resultCode.rawValue == 1555)
            switch error.resultCode {
            case .constraintUnique: Issue.record("not unique")
            case .constraintPrimaryKey: break
            default: Issue.record("unexpected \(error.resultCode)")
            }
            if case .constraintPrimaryKey = error.resultCode {} else { Issue.record("no match") }
        }
        #expect(code(db, "INSERT INTO player(email, name) VALUES ('ann@example.com', 'Bob')") == .constraintUnique)
        #expect(code(db, "INSERT INTO player(name) VALUES (NULL)") == .constraintNotNull)
        #expect(code(db, "INSERT INTO player(name, team) VALUES ('Bob', 'blue')") == .constraintForeignKey)
        #expect(code(db, "INSERT INTO player(name, score) VALUES ('Bob', -1)") == .constraintCheck)
        #expect(code(db, "INSERT INTO team VALUES ('red')") == .constraintPrimaryKey)
        #expect(code(db, "INSERT INTO player(id, name) VALUES ('x', 'Bob')") == .mismatch)
        #expect(code(db, "SELEC 1") == .error)
        #expect(code(db, "SELECT 1") == nil)
        let names: [SQLiteResultCode] = [
            .ok, .error, .busy, .locked, .readOnly, .interrupt, .ioError, .corrupt,
            .full, .cantOpen, .constraint, .constraintPrimaryKey, .constraintUnique,
            .constraintNotNull, .constraintForeignKey, .constraintCheck, .mismatch,
            .misuse, .range
        ]
        #expect(Set(names).count == names.count)
        #expect("\(SQLiteResultCode.constraintForeignKey)" == "constraintForeignKey")
    }

    @Test func busyWhileAnotherConnectionWrites() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("busy.db")
        let writer = try Connection(storageLocation: .onDisk(path))
        try writer.execute("CREATE TABLE t(x)")
        let other = try Connection(storageLocation: .onDisk(path))
        try writer.execute("BEGIN IMMEDIATE")
        #expect(code(other, "BEGIN IMMEDIATE") == .busy)
        #expect(code(other, "BEGIN IMMEDIATE")?.primary == .busy)
        try writer.execute("COMMIT")
        let readOnly = try Connection(storageLocation: .onDisk(path), readOnly: true)
        #expect(code(readOnly, "INSERT INTO t VALUES (1)") == .readOnly)
    }
}
