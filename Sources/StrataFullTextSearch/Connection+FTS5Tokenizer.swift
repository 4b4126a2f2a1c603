import Foundation
#if canImport(SQLite3)
import SQLite3
#endif
import StrataCore

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
        // Strata's own statement: hidden from the user's trace and authorizer.
        try withBookkeeping { try fetchFTS5API() }
    }

    private func fetchFTS5API() throws -> UnsafeMutablePointer<fts5_api> {
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
private func runSwiftTokenizer(
    _ tokenize: Connection.FTS5TokenizerFunction, text: UnsafePointer<CChar>?, count: Int,
    report: (String, Range<Int>) -> Int32
) -> Int32 {
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

extension Connection {
    /// Rewrites one token of a wrapped tokenizer: calls `emit` with each token to index (or
    /// search) in its place, in order. The first takes the token's position; the others share
    /// it (synonyms). Emitting nothing drops the token (a stop word). Throwing fails the statement.
    public typealias FTS5TokenRewriter = (_ token: String, _ emit: (String) -> Void) throws -> Void

    /// Registers a tokenizer that runs another one and rewrites or adds to its tokens: for
    /// synonyms, folding or stop words, keeping the wrapped tokenizer's byte ranges.
    ///
    /// ```swift
    /// try db.registerFTS5Tokenizer(named: "synonyms", wrapping: .unicode61(removeDiacritics: .always)) { token, emit in
    ///     emit(token)
    ///     if token == "car" { emit("automobile") }
    /// }
    /// try db.createFTS5Table("ads", columns: ["text"], options: FTS5Options(tokenizer: .custom(name: "synonyms")))
    /// ```
    /// Arguments a table gives the new tokenizer (`.custom(name:arguments:)`) are passed on to
    /// the wrapped one, after its own. The closure is kept until the connection closes.
    /// - Throws: `SQLiteError` when FTS5 is not available or refuses the registration, or
    ///   (`SQLITE_MISUSE`) when `name` is the name of a tokenizer it wraps (`"unicode61"` wrapping
    ///   `.unicode61()`): FTS5 looks tokenizers up by name, so the wrapper would find itself.
    ///   An unknown wrapped tokenizer is reported when a table using the new one is created.
    public func registerFTS5Tokenizer(named name: String, wrapping base: FTS5Tokenizer, _ rewrite: @escaping FTS5TokenRewriter) throws {
        // FTS5 compares tokenizer names without regard to ASCII case.
        if let clash = base.tokenizerNames.first(where: { $0.lowercased() == name.lowercased() }) {
            throw SQLiteError(
                code: SQLITE_MISUSE,
                message:
                    "Cannot register FTS5 tokenizer \(name.debugDescription) wrapping \(clash.debugDescription): FTS5 finds tokenizers by name, so it would wrap itself; give the wrapper a name of its own"
            )
        }
        let api = try fts5API()
        var tokenizer = fts5_tokenizer(
            xCreate: { userData, arguments, count, instance in
                guard let userData, let instance else { return SQLITE_MISUSE }
                let registration = CallbackBox<FTS5WrapperRegistration>.from(userData)
                let extra = (0..<Int(max(count, 0))).compactMap { arguments?[$0].map { String(cString: $0) } }
                guard let wrapper = registration.makeInstance(extraArguments: extra) else { return SQLITE_ERROR }
                instance.pointee = OpaquePointer(Unmanaged.passRetained(wrapper).toOpaque())
                return SQLITE_OK
            },
            xDelete: { instance in
                guard let instance else { return }
                Unmanaged<FTS5WrapperInstance>.fromOpaque(UnsafeRawPointer(instance)).release()
            },
            xTokenize: { instance, context, flags, text, count, xToken in
                guard let instance, let xToken else { return SQLITE_MISUSE }
                let wrapper = Unmanaged<FTS5WrapperInstance>.fromOpaque(UnsafeRawPointer(instance)).takeUnretainedValue()
                return wrapper.tokenize(context: context, flags: flags, text: text, count: count, xToken: xToken)
            }
        )
        let registration = FTS5WrapperRegistration(api: api, base: base.words, rewrite: rewrite)
        let pointer = CallbackBox(registration).retainedPointer()
        let code = api.pointee.xCreateTokenizer(api, name, pointer, &tokenizer) { CallbackBox<FTS5WrapperRegistration>.release($0) }
        guard code == SQLITE_OK else {
            CallbackBox<FTS5WrapperRegistration>.release(pointer)
            throw SQLiteError(code: code, message: "Could not register FTS5 tokenizer \(name.debugDescription): \(String(cString: sqlite3_errstr(code)))")
        }
    }
}

/// A wrapping tokenizer as registered: the connection's FTS5 API (valid while it is open, which
/// outlives every table instance), the wrapped tokenizer's name and arguments, and the rewriter.
final class FTS5WrapperRegistration {
    let api: UnsafeMutablePointer<fts5_api>
    let base: [String]
    let rewrite: Connection.FTS5TokenRewriter
    /// Set while an instance is made: a wrapped tokenizer that leads back here by name (through
    /// other wrappers, or `porter` over a custom tokenizer) fails instead of recursing forever.
    /// The connection's FTS5 calls run one at a time, so a plain flag suffices.
    private var creating = false

    init(api: UnsafeMutablePointer<fts5_api>, base: [String], rewrite: @escaping Connection.FTS5TokenRewriter) {
        self.api = api
        self.base = base
        self.rewrite = rewrite
    }

    /// An instance of the wrapped tokenizer for one table, or nil when it is unknown, refuses
    /// its arguments or wraps this tokenizer again.
    func makeInstance(extraArguments: [String]) -> FTS5WrapperInstance? {
        guard let name = base.first, !creating else { return nil }
        creating = true
        defer { creating = false }
        var userData: UnsafeMutableRawPointer?
        var tokenizer = fts5_tokenizer()
        guard api.pointee.xFindTokenizer(api, name, &userData, &tokenizer) == SQLITE_OK, let create = tokenizer.xCreate else { return nil }
        let arguments = (base.dropFirst() + extraArguments).map { UnsafePointer(strdup($0)) }
        defer { arguments.forEach { free(UnsafeMutableRawPointer(mutating: $0)) } }
        var instance: OpaquePointer?
        let code = arguments.withUnsafeBufferPointer { buffer in
            create(userData, UnsafeMutablePointer(mutating: buffer.baseAddress), Int32(buffer.count), &instance)
        }
        guard code == SQLITE_OK, let instance else { return nil }
        return FTS5WrapperInstance(base: tokenizer, instance: instance, rewrite: rewrite)
    }
}

/// One table's wrapping tokenizer: the wrapped tokenizer's instance, deleted with it.
final class FTS5WrapperInstance {
    let base: fts5_tokenizer
    let instance: OpaquePointer
    let rewrite: Connection.FTS5TokenRewriter

    init(base: fts5_tokenizer, instance: OpaquePointer, rewrite: @escaping Connection.FTS5TokenRewriter) {
        self.base = base
        self.instance = instance
        self.rewrite = rewrite
    }

    deinit { base.xDelete?(instance) }

    /// What one `xTokenize` call needs inside the wrapped tokenizer's callback.
    final class Call {
        let context: UnsafeMutableRawPointer?
        let xToken: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32, Int32, Int32) -> Int32
        let rewrite: Connection.FTS5TokenRewriter

        init(
            context: UnsafeMutableRawPointer?,
            xToken: @escaping @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32, Int32, Int32) -> Int32,
            rewrite: @escaping Connection.FTS5TokenRewriter
        ) {
            self.context = context
            self.xToken = xToken
            self.rewrite = rewrite
        }
    }

    func tokenize(
        context: UnsafeMutableRawPointer?, flags: Int32, text: UnsafePointer<CChar>?, count: Int32,
        xToken: @escaping @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32, Int32, Int32) -> Int32
    ) -> Int32 {
        guard let tokenize = base.xTokenize else { return SQLITE_ERROR }
        let call = Call(context: context, xToken: xToken, rewrite: rewrite)
        return withExtendedLifetime(call) {
            tokenize(instance, Unmanaged.passUnretained(call).toOpaque(), flags, text, count) { pointer, tokenFlags, token, length, start, end in
                guard let pointer else { return SQLITE_MISUSE }
                let call = Unmanaged<Call>.fromOpaque(pointer).takeUnretainedValue()
                let original = token.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: Int(max(length, 0))), as: UTF8.self) } ?? ""
                var code = SQLITE_OK
                var first = true
                do {
                    try call.rewrite(original) { replacement in
                        guard code == SQLITE_OK, !replacement.isEmpty else { return }
                        var replacement = replacement
                        code = replacement.withUTF8 { bytes in
                            bytes.withMemoryRebound(to: CChar.self) {
                                call.xToken(call.context, first ? tokenFlags : FTS5_TOKEN_COLOCATED, $0.baseAddress, Int32(bytes.count), start, end)
                            }
                        }
                        first = false
                    }
                } catch let error as SQLiteError {
                    return error.code == SQLITE_OK ? SQLITE_ERROR : error.code
                } catch {
                    return SQLITE_ERROR
                }
                return code
            }
        }
    }
}
