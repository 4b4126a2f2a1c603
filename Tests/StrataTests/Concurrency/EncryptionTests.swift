import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

/// Encryption, on whichever SQLite the run loaded: with an encrypting one (SQLite3 Multiple
/// Ciphers, CI's second pass) the behaviour; with any other (Debian's, CI's first pass) the named
/// refusal, never a crash.
@Suite struct EncryptionTests {
    static let secret = "the saffron recipe of grandmother Ottilie"

    /// A file keyed with `passphrase`, holding `rows` rows of the secret text.
    private func makeEncryptedFile(at path: String, passphrase: String, rows: Int = 200, wal: Bool = false) throws {
        let connection = try Connection(storageLocation: .onDisk(path))
        try connection.usePassphrase(passphrase)
        if wal { try connection.execute("PRAGMA journal_mode = WAL") }
        try connection.execute("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
        try connection.transaction {
            for index in 0..<rows { try connection.run("INSERT INTO note(body) VALUES(?)", "\(Self.secret) #\(index)") }
        }
    }

    private func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    private func holdsText(_ data: Data, _ text: String) -> Bool { data.range(of: Data(text.utf8)) != nil }

    @Test func withoutAnEncryptingSQLiteEveryEntryPointRefusesByName() async throws {
        guard !SQLiteLibrary.supportsEncryption else { return }
        let directory = try TemporaryDirectory()
        let path = directory.path("plain.sqlite")
        let connection = try Connection(storageLocation: .onDisk(path))
        #expect(throws: SQLiteLibraryError.encryptionUnavailable) { try connection.usePassphrase("secret") }
        #expect(throws: SQLiteLibraryError.encryptionUnavailable) { try connection.changePassphrase("secret") }
        var configuration = Database.Configuration()
        configuration.passphrase = "secret"
        #expect(throws: SQLiteLibraryError.encryptionUnavailable) { _ = try Database(path: path, configuration: configuration) }
        // The refusal wrote nothing: the file is still a plain, usable database.
        try connection.execute("CREATE TABLE t(x)")
        #expect(try connection.query("SELECT count(*) FROM t") as Int? == 0)
    }

    @Test func anEncryptedFileHoldsNoneOfItsText() throws {
        guard SQLiteLibrary.supportsEncryption else { return }
        let directory = try TemporaryDirectory()
        let path = directory.path("secret.sqlite")
        try makeEncryptedFile(at: path, passphrase: "correct horse")
        let data = try bytes(path)
        #expect(data.count > 4096)
        #expect(!holdsText(data, "saffron"))
        #expect(!holdsText(data, "CREATE TABLE"))
        #expect(!holdsText(data, "SQLite format 3"))
        // The same rows in a plain file do show (the check above can fail).
        let plainPath = directory.path("plain.sqlite")
        let plain = try makeConnection(.onDisk(plainPath), executing: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
        try plain.run("INSERT INTO note(body) VALUES(?)", Self.secret)
        #expect(holdsText(try bytes(plainPath), "saffron"))
    }

    @Test func itOpensWithItsPassphraseOnly() throws {
        guard SQLiteLibrary.supportsEncryption else { return }
        let directory = try TemporaryDirectory()
        let path = directory.path("secret.sqlite")
        try makeEncryptedFile(at: path, passphrase: "correct horse")

        let keyed = try Connection(storageLocation: .onDisk(path))
        try keyed.usePassphrase("correct horse")
        #expect(try keyed.query("SELECT count(*) FROM note") as Int? == 200)

        let wrong = try Connection(storageLocation: .onDisk(path))
        let wrongError = sqliteError { try wrong.usePassphrase("battery staple") }
        #expect(wrongError?.code == SQLITE_NOTADB)
        #expect(wrongError?.message.contains("passphrase") == true)

        let unkeyed = try Connection(storageLocation: .onDisk(path))
        #expect(sqliteError { _ = try unkeyed.query("SELECT count(*) FROM note") as Int? }?.code == SQLITE_NOTADB)

        // A Database fails to open at all, writer and pool, with a wrong passphrase or none.
        var configuration = Database.Configuration()
        configuration.passphrase = "battery staple"
        #expect(sqliteError { _ = try Database(path: path, configuration: configuration) }?.code == SQLITE_NOTADB)
        #expect(sqliteError { _ = try Database(path: path) }?.code == SQLITE_NOTADB)
    }

    @Test(arguments: [false, true])
    func changePassphraseReKeysAndKeepsEveryRow(wal: Bool) throws {
        guard SQLiteLibrary.supportsEncryption else { return }
        let directory = try TemporaryDirectory()
        let path = directory.path("secret.sqlite")
        try makeEncryptedFile(at: path, passphrase: "old", rows: 1_000, wal: wal)
        do {
            let connection = try Connection(storageLocation: .onDisk(path))
            try connection.usePassphrase("old")
            try connection.changePassphrase("new")
            #expect(try connection.query("SELECT count(*) FROM note") as Int? == 1_000)
            #expect(try connection.query("PRAGMA journal_mode") as String? == (wal ? "wal" : "delete"))
        }
        #expect(sqliteError { try Connection(storageLocation: .onDisk(path)).usePassphrase("old") }?.code == SQLITE_NOTADB)
        let connection = try Connection(storageLocation: .onDisk(path))
        try connection.usePassphrase("new")
        #expect(try connection.query("SELECT count(*) FROM note") as Int? == 1_000)
        #expect(try connection.query("SELECT body FROM note WHERE id = 1000") as String? == "\(Self.secret) #999")
        #expect(try connection.query("PRAGMA integrity_check") as String? == "ok")
        #expect(!holdsText(try bytes(path), "saffron"))
    }

    @Test func aPlainFileBecomesEncryptedByChangePassphrase() throws {
        guard SQLiteLibrary.supportsEncryption else { return }
        let directory = try TemporaryDirectory()
        let path = directory.path("plain.sqlite")
        do {
            let connection = try makeConnection(.onDisk(path), executing: "CREATE TABLE note(body TEXT)")
            try connection.run("INSERT INTO note VALUES(?)", Self.secret)
            try connection.changePassphrase("now secret")
        }
        #expect(!holdsText(try bytes(path), "saffron"))
        let connection = try Connection(storageLocation: .onDisk(path))
        try connection.usePassphrase("now secret")
        #expect(try connection.query("SELECT body FROM note") as String? == Self.secret)
    }

    @Test func walAndTheReaderPoolWorkOnAnEncryptedDatabase() async throws {
        guard SQLiteLibrary.supportsEncryption else { return }
        let directory = try TemporaryDirectory()
        let path = directory.path("secret.sqlite")
        var configuration = Database.Configuration()
        configuration.passphrase = "pool passphrase"
        configuration.maximumReaderCount = 4
        let database = try Database(path: path, configuration: configuration)
        try await database.write { db in
            try db.execute("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
            for index in 0..<300 { try db.run("INSERT INTO note(body) VALUES(?)", "\(Self.secret) #\(index)") }
        }
        #expect(try await database.read { db in try db.query("PRAGMA journal_mode") as String? } == "wal")
        // Before any checkpoint, the rows are in the WAL file: encrypted there too.
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!holdsText(try bytes(path + "-wal"), "saffron"))
        // Many reads at once, so the pool opens (and keys) several readers.
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    try await database.read { db in
                        try db.query("SELECT count(*) FROM note WHERE body LIKE '%saffron%'") as Int? ?? -1
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 300, count: 16))
        try await database.close()
        #expect(!holdsText(try bytes(path), "saffron"))

        let reopened = try Database(path: path, configuration: configuration)
        #expect(try await reopened.read { db in try db.query("SELECT count(*) FROM note") as Int? } == 300)
        try await reopened.close()
    }

    /// As documented in the Encryption article: SQLite3 Multiple Ciphers backs up an encrypted
    /// database only into a keyed destination (an encrypted copy under the destination's own
    /// passphrase) and refuses a plain one; a dump is plaintext SQL.
    @Test func aBackupIsEncryptedUnderTheDestinationsKeyAndADumpIsPlaintext() throws {
        guard SQLiteLibrary.supportsEncryption else { return }
        let directory = try TemporaryDirectory()
        let path = directory.path("secret.sqlite")
        try makeEncryptedFile(at: path, passphrase: "source key", rows: 50)
        let source = try Connection(storageLocation: .onDisk(path))
        try source.usePassphrase("source key")

        func backup(to destination: Connection) throws {
            let done = DispatchSemaphore(value: 0)
            let outcome = Locked<Connection.BackupResult?>(nil)
            try source.backup(to: destination, pageSize: -1, completionQueue: DispatchQueue(label: "encryption-backup")) { result in
                outcome.withLock { $0 = result }
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 30) == .success)
            #expect(outcome.current?.isSuccess == true)
        }

        let plainPath = directory.path("plain-copy.sqlite")
        let plainDestination = try Connection(storageLocation: .onDisk(plainPath))
        let refusal = sqliteError { try backup(to: plainDestination) }
        #expect(refusal?.code == SQLITE_ERROR)
        #expect(refusal?.message.contains("incompatible") == true)
        #expect(try plainDestination.query("SELECT count(*) FROM sqlite_master") as Int? == 0)

        let keyedPath = directory.path("keyed-copy.sqlite")
        do {
            let destination = try Connection(storageLocation: .onDisk(keyedPath))
            try destination.usePassphrase("copy key")
            try backup(to: destination)
        }
        #expect(!holdsText(try bytes(keyedPath), "saffron"))
        #expect(sqliteError { try Connection(storageLocation: .onDisk(keyedPath)).usePassphrase("source key") }?.code == SQLITE_NOTADB)
        let keyed = try Connection(storageLocation: .onDisk(keyedPath))
        try keyed.usePassphrase("copy key")
        #expect(try keyed.query("SELECT count(*) FROM note") as Int? == 50)

        var dump = ""
        try source.dump(to: &dump)
        #expect(dump.contains("CREATE TABLE note"))
        #expect(dump.contains("saffron recipe"))
        // The dump restores into a plain database: the way to a plain copy.
        let restored = try Connection(storageLocation: .onDisk(directory.path("restored.sqlite")))
        try restored.restore(fromDump: dump)
        #expect(try restored.query("SELECT count(*) FROM note") as Int? == 50)
    }
}
