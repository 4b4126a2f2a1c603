import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// The type tag FTS5 expects for the `fts5_api` pointer `SELECT fts5(?1)` writes: SQLite compares
/// it by content but keeps the pointer for the statement's life, so it is allocated once, for good.
private nonisolated(unsafe) let fts5APIPointerType: UnsafeMutablePointer<CChar> = strdup("fts5_api_ptr")

extension Connection {
    /// Splits a text into tokens: calls `emit` with each token and its byte range in the text's
    /// UTF-8, in order. Throwing fails the statement that ran the tokenizer.
    public typealias FTS5TokenizerFunction = (_ text: String, _ emit: (String, Range<Int>) -> Void) throws -> Void

    /// Registers a tokenizer written in Swift, for FTS5 tables created with
    /// `FTS5Options(tokenizer: .custom(name: name))`.
    ///
    /// ```swift
    /// try db.registerFTS5Tokenizer(named: "dashes") { (text: String, emit: (String, Range<Int>) -> Void) in
    ///     var start = 0
    ///     for (offset, byte) in text.utf8.enumerated() + [(text.utf8.count, UInt8(ascii: "-"))] where byte == UInt8(ascii: "-") {
    ///         if offset > start { emit(String(decoding: Array(text.utf8)[start..<offset], as: UTF8.self).lowercased(), start..<offset) }
    ///         start = offset + 1
    ///     }
    /// }
    /// try db.createFTS5Table("parts", columns: ["code"], options: FTS5Options(tokenizer: .custom(name: "dashes")))
    /// ```
    /// The tokenizer runs for documents and for queries alike. Each token's range is the bytes
    /// of the text it came from, which `highlight()` and `snippet()` mark, so it must lie within
    /// `text.utf8` (a range outside it fails the statement). Empty tokens are skipped. A text
    /// that is not valid UTF-8 reaches the closure repaired, so its byte offsets may differ.
    ///
    /// A tokenizer that throws fails the statement that ran it: with the error's code when it is
    /// a `SQLiteError`, `SQLITE_ERROR` otherwise (FTS5 passes on no message). The closure is
    /// kept until the connection closes.
    /// - Throws: `SQLiteError` when FTS5 is not available or refuses the registration.
    public func registerFTS5Tokenizer(named name: String, _ tokenize: @escaping FTS5TokenizerFunction) throws {
        let api = try fts5API()
        var tokenizer = fts5_tokenizer(
            xCreate: { userData, _, _, instance in
                // Each table's instance holds its own reference to the closure's box.
                guard let userData, let instance else { return SQLITE_MISUSE }
                instance.pointee = OpaquePointer(Unmanaged<CallbackBox<FTS5TokenizerFunction>>.fromOpaque(userData).retain().toOpaque())
                return SQLITE_OK
            },
            xDelete: { instance in
                CallbackBox<FTS5TokenizerFunction>.release(instance.map(UnsafeMutableRawPointer.init))
            },
            xTokenize: { instance, context, _, text, count, xToken in
                guard let instance, let xToken else { return SQLITE_MISUSE }
                let tokenize = CallbackBox<FTS5TokenizerFunction>.from(UnsafeMutableRawPointer(instance))
                return runSwiftTokenizer(tokenize, text: text, count: Int(count)) { token, range in
                    var token = token
                    return token.withUTF8 { bytes in
                        bytes.withMemoryRebound(to: CChar.self) {
                            xToken(context, 0, $0.baseAddress, Int32(bytes.count), Int32(range.lowerBound), Int32(range.upperBound))
                        }
                    }
                }
            }
        )
        let box = CallbackBox<FTS5TokenizerFunction>(tokenize)
        let pointer = box.retainedPointer()
        let code = api.pointee.xCreateTokenizer(api, name, pointer, &tokenizer) { CallbackBox<FTS5TokenizerFunction>.release($0) }
        guard code == SQLITE_OK else {
            // FTS5 does not call the destroy callback when the registration fails.
            CallbackBox<FTS5TokenizerFunction>.release(pointer)
            throw SQLiteError(code: code, message: "Could not register FTS5 tokenizer \(name.debugDescription): \(String(cString: sqlite3_errstr(code)))")
        }
    }

    /// The connection's `fts5_api`, which `SELECT fts5(?1)` writes through a bound pointer.
    /// - Throws: `SQLiteError` when FTS5 is not compiled in, or its API is older than version 2.
    func fts5API() throws -> UnsafeMutablePointer<fts5_api> {
        var statement: OpaquePointer?
        var code = sqlite3_prepare_v2(handle, "SELECT fts5(?1)", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard code == SQLITE_OK, let statement else {
            throw SQLiteError(code: code, message: "FTS5 is not available: \(String(cString: sqlite3_errmsg(handle)))")
        }
        var api: UnsafeMutablePointer<fts5_api>?
        code = withUnsafeMutablePointer(to: &api) { slot in
            let bound = sqlite3_bind_pointer(statement, 1, slot, fts5APIPointerType, nil)
            return bound == SQLITE_OK ? sqlite3_step(statement) : bound
        }
        guard code == SQLITE_ROW || code == SQLITE_DONE, let api else {
            throw SQLiteError(code: code == SQLITE_ROW || code == SQLITE_DONE ? SQLITE_ERROR : code, message: "FTS5 is not available")
        }
        guard api.pointee.iVersion >= 2 else {
            throw SQLiteError(code: SQLITE_ERROR, message: "FTS5 API version \(api.pointee.iVersion) is too old (2 needed)")
        }
        return api
    }
}

/// Runs a Swift tokenizer over `count` UTF-8 bytes at `text`, passing each non-empty token to
/// `report` (FTS5's `xToken`), and returns the result code for `xTokenize`: the first code
/// `report` returns that is not `SQLITE_OK` (later tokens are dropped), `SQLITE_RANGE` for a
/// token whose range lies outside the text, or the thrown error's code.
private func runSwiftTokenizer(_ tokenize: Connection.FTS5TokenizerFunction, text: UnsafePointer<CChar>?, count: Int,
                               report: (String, Range<Int>) -> Int32) -> Int32 {
    let string = text.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: count), as: UTF8.self) } ?? ""
    var code = SQLITE_OK
    do {
        // `report` is only called while `tokenize` runs, which is what non-escaping means; the
        // compiler cannot see that through the nested closure.
        try withoutActuallyEscaping(report) { report in
            try tokenize(string) { token, range in
                guard code == SQLITE_OK, !token.isEmpty else { return }
                guard range.lowerBound >= 0, range.upperBound <= count else {
                    code = SQLITE_RANGE
                    return
                }
                code = report(token, range)
            }
        }
    } catch let error as SQLiteError {
        return error.code == SQLITE_OK ? SQLITE_ERROR : error.code
    } catch {
        return SQLITE_ERROR
    }
    return code
}
