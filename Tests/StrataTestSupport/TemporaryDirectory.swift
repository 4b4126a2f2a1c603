import Foundation
import StrataSQift
import Strata

/// A directory of its own for one test, removed with everything in it when the value goes away:
/// keep it alive (a `let` in the test) for as long as files in it are open.
public final class TemporaryDirectory: Sendable {
    /// The directory, which exists until the value is released.
    public let url: URL

    /// Creates a fresh, empty directory in the system's temporary directory.
    public init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` in the directory (the file need not exist).
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A `Database` on a file of a fresh ``TemporaryDirectory``, with the directory that holds it:
/// keep the value for as long as the database is used, since releasing it removes the files.
public struct TemporaryDatabase: Sendable {
    /// The database, opened with `Database(path:configuration:)`.
    public let database: Database
    /// The directory the database file is in (removed when released).
    public let directory: TemporaryDirectory
    /// The database file's path.
    public let path: String
}

/// Opens a `Database(path:configuration:)`, the recommended setup, on `name` in a fresh temporary
/// directory.
public func makeDatabase(
    named name: String = "app.sqlite", configuration: Database.Configuration = Database.Configuration()
) throws -> TemporaryDatabase {
    let directory = try TemporaryDirectory()
    let path = directory.path(name)
    return TemporaryDatabase(database: try Database(path: path, configuration: configuration), directory: directory, path: path)
}

/// Runs `body` and returns the `SQLiteError` it throws, or nil if it throws none (or another error).
public func sqliteError(_ body: () throws -> Void) -> SQLiteError? {
    do { try body(); return nil } catch let error as SQLiteError { return error } catch { return nil }
}

/// Opens `Database(storageLocation: .onDisk(path))`, the form the seed READMEs use, on `name` in a
/// fresh temporary directory.
public func makeOnDiskDatabase(named name: String = "db.sqlite") throws -> TemporaryDatabase {
    let directory = try TemporaryDirectory()
    let path = directory.path(name)
    return TemporaryDatabase(database: try Database(storageLocation: .onDisk(path)), directory: directory, path: path)
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
