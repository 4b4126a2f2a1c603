import Foundation
import Testing
import StrataSqueal

/// `Database` means Squeal's database (a `Connection`) for code importing StrataSqueal.
@Suite struct HelpersDatabaseNameTests {
    @Test func databaseIsConnectionAndOpensInMemory() throws {
        let db = Database()
        #expect(type(of: db) == Connection.self)
        #expect(db.isInMemoryDatabase)
        #expect(!db.isTemporaryDatabase)
        #expect(!db.isPersistentDatabase)
        #expect(db.path == ":memory:")
        try db.execute("CREATE TABLE t(x)")
        #expect(try db.countFrom("t") == 0)
    }

    @Test func connectionInitializersStayUnambiguous() throws {
        let plain = Connection()
        let sqift = try Connection(storageLocation: .inMemory)
        let squeal: Database = Database()
        for connection in [plain, sqift, squeal] {
            #expect(connection.isInMemoryDatabase)
        }
    }

    @Test func sqiftDatabaseStaysReachableQualified() throws {
        let pool = try Strata.Database(storageLocation: .inMemory)
        let answer: Int? = try pool.writerConnectionQueue.connection.query("SELECT 42")
        #expect(answer == 42)
    }
}
