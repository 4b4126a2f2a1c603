import Testing
import StrataSqueal

@Test func moduleReexportsStrata() throws {
    let connection = try Connection(storageLocation: .inMemory)
    try connection.execute("CREATE TABLE t(x)")
    try connection.run("INSERT INTO t VALUES(?)", 42)
    let value: Int? = try connection.query("SELECT x FROM t")
    #expect(value == 42)
}
