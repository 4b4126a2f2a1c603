// The temporary files of tests: a directory per test, and a `Database` in one. Kept apart from
// StrataTesting's snapshot assertions (which need swift-syntax), so Strata's own core suites use
// the same fixtures without building it.
import Foundation
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

/// A `Database` on a file in a fresh ``TemporaryDirectory``: the database a test opens, and the
/// files it leaves (the database, its `-wal` and `-shm`) removed when the value is released.
///
/// ```swift
/// @Test func savesADraft() throws {
///     let temporary = try TemporaryDatabase()
///     try temporary.database.write { try $0.execute("CREATE TABLE draft(body TEXT)") }
/// }
/// ```
///
/// Keep the value (not only its `database`) for as long as the database is used.
public final class TemporaryDatabase: Sendable {
    /// The database, opened with `Database(path:configuration:)` unless another opener was given.
    public let database: Database
    /// The directory the database file is in (removed when released).
    public let directory: TemporaryDirectory
    /// The database file's path.
    public let path: String

    /// Opens `Database(path:configuration:)`, the recommended setup, on `name` in a fresh
    /// temporary directory.
    public convenience init(named name: String = "app.sqlite", configuration: Database.Configuration = Database.Configuration()) throws {
        try self.init(named: name) { try Database(path: $0, configuration: configuration) }
    }

    /// Opens the database `open` returns for the path of `name` in a fresh temporary directory:
    /// for another opener (a read replica, SQift's `storageLocation:`), or a migration first.
    public init(named name: String = "app.sqlite", opening open: (_ path: String) throws -> Database) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path(name)
        self.database = try open(path)
        self.directory = directory
        self.path = path
    }
}

/// The kinds of `Database` a suite runs its tests on, the recommended one first: a test that
/// takes a kind (`@Test(arguments: DatabaseKind.allCases)`) checks that its behaviour does not
/// depend on how the database was opened.
public enum DatabaseKind: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `Database(path:)` on a file: the recommended setup (WAL, a writer and its readers).
    case file
    /// `Database(path: Database.inMemoryPath(named:))`: shared memory, every connection on it.
    case namedInMemory
    /// A file with one reader connection, so reads queue behind each other.
    case oneReader

    public var description: String { rawValue }
}

extension TemporaryDatabase {
    /// Opens a database of `kind` for a test; its ``path`` names the file for the file kinds, and
    /// a file that never exists for ``DatabaseKind/namedInMemory``.
    public convenience init(_ kind: DatabaseKind, named name: String = "app.sqlite") throws {
        switch kind {
        case .file:
            try self.init(named: name)
        case .namedInMemory:
            try self.init(named: name) { _ in try Database(path: Database.inMemoryPath(named: "strata-test-\(UUID().uuidString)")) }
        case .oneReader:
            var configuration = Database.Configuration()
            configuration.maximumReaderCount = 1
            try self.init(named: name, configuration: configuration)
        }
    }
}
