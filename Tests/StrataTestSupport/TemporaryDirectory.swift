import Foundation
import StrataSQift
import Strata
@_exported import StrataTestFixtures

/// Opens a `Database(path:configuration:)`, the recommended setup, on `name` in a fresh temporary
/// directory.
public func makeDatabase(
    named name: String = "app.sqlite", configuration: Database.Configuration = Database.Configuration()
) throws -> TemporaryDatabase {
    try TemporaryDatabase(named: name, configuration: configuration)
}

/// Opens a database of `kind` (``DatabaseKind``) on `name` in a fresh temporary directory.
public func makeDatabase(_ kind: DatabaseKind, named name: String = "app.sqlite") throws -> TemporaryDatabase {
    try TemporaryDatabase(kind, named: name)
}

/// Runs `body` and returns the `SQLiteError` it throws, or nil if it throws none (or another error).
public func sqliteError(_ body: () throws -> Void) -> SQLiteError? {
    do { try body(); return nil } catch let error as SQLiteError { return error } catch { return nil }
}

/// Opens `Database(storageLocation: .onDisk(path))`, the form the seed READMEs use, on `name` in a
/// fresh temporary directory.
public func makeOnDiskDatabase(named name: String = "db.sqlite") throws -> TemporaryDatabase {
    try TemporaryDatabase(named: name) { try Database(storageLocation: .onDisk($0)) }
}

/// Two connections to one file of a fresh temporary directory, as two processes would hold it:
/// keep the value for as long as they are used.
public struct TwoConnections {
    /// The directory the file is in (removed when released).
    public let directory: TemporaryDirectory
    /// The file's path.
    public let path: String
    /// The first connection opened.
    public let mine: Connection
    /// The second connection opened, to make the changes the first must notice.
    public let other: Connection

    /// Opens `Connection(storageLocation: .onDisk(path))` twice on `name` in a fresh directory,
    /// running `prepare` on the first before the second is opened.
    public init(named name: String, preparing prepare: (Connection) throws -> Void = { _ in }) throws {
        directory = try TemporaryDirectory()
        path = directory.path(name)
        mine = try Connection(storageLocation: .onDisk(path))
        try prepare(mine)
        other = try Connection(storageLocation: .onDisk(path))
    }
}
