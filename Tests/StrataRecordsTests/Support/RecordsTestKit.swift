import StrataRecords
import StrataSQift
import StrataTestSupport

/// The shared kit's `TemporaryDatabase`, named for this target's suites that do not import the kit.
typealias OnDiskDatabase = TemporaryDatabase

/// `makeOnDiskDatabase(named:)` of the shared kit, for this target's suites that do not import it:
/// a `Database(path: _)` in a fresh temporary directory, kept (and the files
/// with it) for as long as the value is.
func onDiskDatabase(named name: String = "db.sqlite") throws -> OnDiskDatabase {
    try makeOnDiskDatabase(named: name)
}

/// An in-memory connection with the tables of `records`, each made by its `createTable`, in order.
func connection(withTablesOf records: any Record.Type...) throws -> Connection {
    let db = try Connection()
    for record in records { try record.createTable(db) }
    return db
}

/// An in-memory connection with `R`'s table, holding `records` (inserted with `insertAll`).
func connection<R: Record>(holding records: [R]) throws -> Connection {
    let db = try Connection()
    try R.createTable(db)
    try R.insertAll(db, records)
    return db
}
