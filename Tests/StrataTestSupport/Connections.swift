import Strata
import StrataSQift

/// A connection on `storageLocation` (in memory unless named) on which `sql` has run: the schema
/// and rows a test starts from, in one line instead of the same two in every test.
public func makeConnection(_ storageLocation: StorageLocation = .inMemory, executing sql: String) throws -> Connection {
    let connection = try Connection(storageLocation: storageLocation)
    try connection.execute(sql)
    return connection
}
