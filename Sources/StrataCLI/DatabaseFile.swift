import Foundation
import Strata

/// Opens database files for the commands, refusing anything that is not an existing, readable
/// SQLite database before a byte is written.
enum DatabaseFile {
    /// How long a command waits on another process's lock before failing with "database is locked".
    static let busyTimeout: TimeInterval = 5

    /// Opens the existing database at `path`; never creates a file.
    ///
    /// The file is opened `READWRITE` without `CREATE`, so SQLite itself refuses to create it even
    /// if it vanished after the checks. A write-protected file opens read-only. (Not `READONLY`
    /// for read-only commands: a read-only connection that is the last to close a WAL database
    /// cannot remove the `-wal` and `-shm` files it made.)
    /// - Throws: `CLIError` naming a missing file, a directory, an unreadable file, or what SQLite
    ///   found reading the schema ("file is not a database", "database disk image is malformed").
    static func openExisting(_ path: String) throws -> Connection {
        try checkReadable(path)
        let connection = try open(path, flags: OpenFlags.make(create: false))
        try prepare(connection)
        try validate(connection, path: path)
        return connection
    }

    /// Opens the database at `path`, creating it when missing (only `migrate` and backup
    /// destinations do this).
    /// - Throws: `CLIError` for a directory or an unreadable file; `SQLiteError` when SQLite
    ///   cannot open or read it.
    static func openOrCreate(_ path: String) throws -> Connection {
        let exists = try checkNotDirectory(path)
        if exists { try checkReadable(path) }
        let connection = try open(path, flags: OpenFlags.make())
        try prepare(connection)
        if exists { try validate(connection, path: path) }
        return connection
    }

    /// Throws unless `path` names a readable regular file.
    static func checkReadable(_ path: String) throws {
        guard try checkNotDirectory(path) else { throw CLIError("no such file: \(path)") }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CLIError("cannot read \(path): permission denied")
        }
    }

    /// Throws when `path` is a directory; returns whether something exists there.
    @discardableResult
    static func checkNotDirectory(_ path: String) throws -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return false }
        if isDirectory.boolValue { throw CLIError("\(path) is a directory, not a database file") }
        return true
    }

    /// The size of the file at `path` in bytes, or nil when there is none.
    static func fileSize(_ path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
    }

    /// The files SQLite may make for the database at `path`: the file and its siblings.
    static func files(of path: String) -> [String] {
        ["", "-journal", "-wal", "-shm"].map { path + $0 }
    }

    /// Opens `path` with `flags`, reporting a failure with the path alone.
    private static func open(_ path: String, flags: Int32) throws -> Connection {
        do {
            return try Connection(storageLocation: .onDisk(path), flags: flags)
        } catch let error as SQLiteError {
            // Strata appends the path to SQLite's message; the message here leads with it.
            let reason = error.message.components(separatedBy: " (path: ").first ?? error.message
            throw CLIError("cannot open \(path): \(reason)")
        }
    }

    private static func prepare(_ connection: Connection) throws {
        try connection.busyHandler(.timeout(busyTimeout))
    }

    /// Reads the schema, which is where SQLite first notices a file that is not a database or
    /// a damaged first page.
    private static func validate(_ connection: Connection, path: String) throws {
        do {
            let _: Int? = try connection.query("SELECT count(*) FROM sqlite_master")
        } catch let error as SQLiteError {
            throw CLIError("\(path): \(error.message)")
        }
    }
}

/// The database files a command is about to create at `path`, told apart from those already there,
/// so a command that fails removes what it made and leaves what it found.
struct NewDatabaseFiles {
    let path: String
    /// Which of `DatabaseFile.files(of: path)` existed when the command began.
    private let existing: Set<String>

    /// Notes which of the files at `path` exist now. Call it before anything may create them.
    init(at path: String) {
        self.path = path
        existing = Set(DatabaseFile.files(of: path).filter { FileManager.default.fileExists(atPath: $0) })
    }

    /// Whether the database file itself was there before.
    var databaseExisted: Bool { existing.contains(path) }

    /// Removes the files that were not there before; a file that was is never touched. Call it
    /// once no connection has them open.
    func removeCreated() {
        for file in DatabaseFile.files(of: path) where !existing.contains(file) {
            try? FileManager.default.removeItem(atPath: file)
        }
    }

    /// Runs `body`; when it throws, removes the files it created, then rethrows.
    func removingCreated<T>(onFailureOf body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            removeCreated()
            throw error
        }
    }
}
