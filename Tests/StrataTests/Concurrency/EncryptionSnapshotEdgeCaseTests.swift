import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

/// Encryption and snapshots at their edges: an empty passphrase is refused (not taken for no
/// encryption), closing while a snapshot is taken succeeds, and the passphrase check stays out of
/// the user's trace (one test per defect a probe found). Encryption and snapshots
/// need the SQLite 3.54 build of CI's second pass; on the system SQLite these tests check the
/// named refusal only.
@Suite struct EncryptionSnapshotEdgeCaseTests {
    static let secret = "saffron-regression-secret"
    static func holds(_ path: String, _ text: String) -> Bool {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else { return false }
        return data.range(of: Data(text.utf8)) != nil
    }

    /// An empty passphrase means "no encryption" to the cipher layer: keying with it wrote a
    /// plaintext file, and re-keying to it decrypted one, both silently. Both are refused now.
    @Test func anEmptyPassphraseIsRefusedNotTakenForNoEncryption() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("empty.sqlite")
        var configuration = Database.Configuration()
        configuration.passphrase = ""
        #expect(throws: (any Error).self) { try Database(path: path, configuration: configuration) }
        guard SQLiteLibrary.supportsEncryption else {
            #expect(throws: SQLiteLibraryError.self) { try Connection(storageLocation: .onDisk(path)).usePassphrase("") }
            return
        }
        let refused = #expect(throws: SQLiteError.self) { try Connection(storageLocation: .onDisk(path)).usePassphrase("") }
        #expect(refused?.code == SQLITE_MISUSE)
        #expect(refused?.message.contains("empty passphrase") == true)

        let keyed = directory.path("keyed.sqlite")
        let connection = try Connection(storageLocation: .onDisk(keyed))
        try connection.usePassphrase("k")
        try connection.execute("CREATE TABLE note(body TEXT)")
        try connection.run("INSERT INTO note VALUES(?)", Self.secret)
        #expect(throws: SQLiteError.self) { try connection.changePassphrase("") }
        // Still encrypted, still readable with its passphrase.
        #expect(try connection.query("SELECT body FROM note") as String? == Self.secret)
        #expect(!Self.holds(keyed, Self.secret))
    }

    /// A snapshot taken while `close()` runs: close swept the snapshots' reads before this one
    /// was registered, and its final checkpoint then failed with "database is locked" after the
    /// busy timeout. Now the late snapshot is refused as closed and close succeeds.
    @Test func closingWhileASnapshotIsTakenSucceeds() async throws {
        guard SQLiteLibrary.supportsSnapshots else { return }
        for round in 0..<20 {
            let directory = try TemporaryDirectory()
            let database = try Database(path: directory.path("r.sqlite"))
            try await database.write { try $0.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
            async let snapshot: Strata.DatabaseSnapshot? = try? database.readSnapshot()
            try await Task.sleep(for: .microseconds(UInt64(round * 50)))
            var closeError: (any Error)?
            do { try await database.close() } catch { closeError = error }
            _ = await snapshot
            #expect(closeError == nil, "round \(round): close threw \(String(describing: closeError))")
        }
    }

    /// The passphrase's check reads the schema for Strata, not for the user: it stays out of a
    /// trace installed before it.
    @Test func thePassphraseCheckStaysOutOfTheUsersTrace() throws {
        guard SQLiteLibrary.supportsEncryption else { return }
        let directory = try TemporaryDirectory()
        let connection = try Connection(storageLocation: .onDisk(directory.path("traced.sqlite")))
        nonisolated(unsafe) var traced: [String] = []
        connection.traceEvent(mask: Connection.TraceEvent.statementMask) { event in
            if case .statement(_, let sql) = event { traced.append(sql) }
        }
        try connection.usePassphrase("k")
        try connection.execute("CREATE TABLE t(x)")
        #expect(traced == ["CREATE TABLE t(x)"])
    }
}
