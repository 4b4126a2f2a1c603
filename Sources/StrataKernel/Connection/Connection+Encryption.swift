import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Connection {
    /// Keys the connection with `passphrase` (GRDB's spelling), for a SQLite that encrypts:
    /// SQLite3 Multiple Ciphers or SQLCipher linked in place of libsqlite3 (see the Encryption
    /// article).
    ///
    /// Call it right after opening, before any statement reads the file: SQLite reads the first
    /// page with the key it has then. An empty file becomes encrypted with this passphrase when
    /// its first page is written. The key is checked at once by reading the schema, so a wrong
    /// passphrase fails here, with `SQLITE_NOTADB`, rather than at the first query.
    ///
    /// ```swift
    /// let connection = try Connection(path: "secret.sqlite")
    /// try connection.usePassphrase("correct horse battery staple")
    /// ```
    /// ``Database`` keys every connection it opens, writer and readers, from
    /// ``Database/Configuration/passphrase``.
    /// - Throws: ``SQLiteLibraryError/encryptionUnavailable`` when the linked SQLite cannot
    ///   encrypt (the system libsqlite3 of Debian or macOS); `SQLiteError` `SQLITE_MISUSE` for an
    ///   empty passphrase (which would not encrypt); `SQLiteError` `SQLITE_NOTADB` when
    ///   the passphrase does not open the file (or it is not encrypted, or not a database).
    public func usePassphrase(_ passphrase: String) throws {
        guard SQLiteLibrary.supportsEncryption else { throw SQLiteLibraryError.encryptionUnavailable }
        try Self.refuseEmpty(passphrase)
        let bytes = Array(passphrase.utf8)
        try check(bytes.withUnsafeBytes { SQLiteLibrary.key(handle, $0) } ?? SQLITE_ERROR)
        try checkPassphrase()
    }

    /// Re-encrypts the database with `passphrase` (GRDB's spelling): every page is rewritten, so
    /// it takes as long as copying the file, and every row is kept. The connection must already
    /// be keyed with the current passphrase (``usePassphrase(_:)``); an unencrypted file becomes
    /// encrypted.
    ///
    /// Re-key while no other connection has the file open (close the ``Database`` first): the
    /// others still hold the old key and would read the re-encrypted pages as garbage. A file in
    /// WAL mode stays in WAL mode (SQLite3 Multiple Ciphers 3.54 re-keys it in place; tested).
    /// - Throws: ``SQLiteLibraryError/encryptionUnavailable`` when the linked SQLite cannot
    ///   encrypt; `SQLiteError` `SQLITE_MISUSE` for an empty passphrase (which would decrypt the
    ///   file silently); `SQLiteError` when SQLite refuses (a transaction is open, the file is busy).
    public func changePassphrase(_ passphrase: String) throws {
        guard SQLiteLibrary.supportsEncryption else { throw SQLiteLibraryError.encryptionUnavailable }
        try Self.refuseEmpty(passphrase)
        let bytes = Array(passphrase.utf8)
        try check(bytes.withUnsafeBytes { SQLiteLibrary.rekey(handle, $0) } ?? SQLITE_ERROR)
    }

    /// An empty key means "no encryption" to SQLite3 Multiple Ciphers and SQLCipher: keying with
    /// it would leave the file in plaintext, and re-keying to it would decrypt the file, both
    /// silently. Refused by name instead.
    /// A key longer than SQLite's `Int32` length is refused too, rather than trapping.
    private static func refuseEmpty(_ passphrase: String) throws {
        guard passphrase.utf8.count <= Int(Int32.max) else {
            throw SQLiteError(code: SQLITE_TOOBIG, message: "the passphrase is longer than SQLite takes (\(Int32.max) bytes)")
        }
        guard passphrase.utf8.isEmpty else { return }
        throw SQLiteError(code: SQLITE_MISUSE, message: "an empty passphrase does not encrypt: SQLite would keep or write the file in plaintext")
    }

    /// Reads the schema, the first read of the file, so a wrong key fails now and says so.
    private func checkPassphrase() throws {
        // Strata's check, not the user's statement: out of their trace and authorizer.
        let code = withBookkeeping { sqlite3_exec(handle, "SELECT count(*) FROM main.sqlite_master", nil, nil, nil) }
        guard code != SQLITE_OK else { return }
        let error = SQLiteError(handle: handle, code: code)
        guard code & 0xFF == SQLITE_NOTADB else { throw error }
        throw SQLiteError(
            code: error.code,
            message:
                "\(error.message): the passphrase does not open \(openedPath.isEmpty ? "the database" : "\"\(openedPath)\"") (a wrong passphrase, a file that is not encrypted, or not a database)",
            extendedCode: error.extendedCode
        )
    }
}
