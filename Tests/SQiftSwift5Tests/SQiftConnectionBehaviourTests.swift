import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

// Connection initialisers and properties as SQift code writes them, in Swift 5 mode.
@Suite struct SQiftConnectionBehaviourTests {
    @Test func connectionInitialisersAndProperties() throws {
        let a = try Connection()
        #expect(a.fileName == "")
        let b = try Connection(storageLocation: .temporary, tableLockPolicy: .poll(0.01), readOnly: false, multiThreaded: false, sharedCache: false)
        #expect(b.readOnly == false)
        _ = b.threadSafe
        let c = try Connection(storageLocation: .inMemory, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        try c.execute("CREATE TABLE t(a); INSERT INTO t VALUES(1); INSERT INTO t VALUES(2)")
        #expect(c.lastInsertRowID == 2)
        #expect(c.changes == 1)
        #expect(c.totalChanges == 2)
        _ = c.tableLockPolicy
        _ = c.handle
        try c.check(SQLITE_OK)
        c.interrupt()
        #expect(StorageLocation.inMemory.path == ":memory:")
        #expect(StorageLocation.temporary.path == "")
        #expect("it's".sqift.addingSQLEscapes() == "'it''s'")
        let s: SQL = "SELECT 1"
        let one: Int? = try c.query(s)
        #expect(one == 1)
    }
}
