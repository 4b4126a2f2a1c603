import Foundation
import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif
import StrataSQLiteSession

/// Changesets in files, read and written in pieces through SQLite's streaming functions.
enum ChangesetFile {
    private final class Output {
        let handle: FileHandle
        var failure: Error?
        init(_ handle: FileHandle) { self.handle = handle }
    }

    private final class Input {
        let handle: FileHandle
        var failure: Error?
        init(_ handle: FileHandle) { self.handle = handle }
    }

    typealias OutputFunction = @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?, Int32) -> Int32
    typealias InputFunction = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?) -> Int32

    private static let write: OutputFunction = { context, bytes, count in
        guard let context else { return SQLITE_IOERR }
        let output = Unmanaged<Output>.fromOpaque(context).takeUnretainedValue()
        guard let bytes, count > 0 else { return SQLITE_OK }
        do {
            try output.handle.write(contentsOf: Data(bytes: bytes, count: Int(count)))
            return SQLITE_OK
        } catch {
            output.failure = error
            return SQLITE_IOERR
        }
    }

    private static let read: InputFunction = { context, buffer, count in
        guard let context, let buffer, let count else { return SQLITE_IOERR }
        let input = Unmanaged<Input>.fromOpaque(context).takeUnretainedValue()
        do {
            let data = try input.handle.read(upToCount: Int(max(0, count.pointee))) ?? Data()
            data.copyBytes(to: buffer.assumingMemoryBound(to: UInt8.self), count: data.count)
            count.pointee = Int32(data.count)
            return SQLITE_OK
        } catch {
            input.failure = error
            return SQLITE_IOERR
        }
    }

    /// Creates (or truncates) the file at `url` and lets `produce` stream into it.
    static func write(to url: URL, _ produce: (OutputFunction, UnsafeMutableRawPointer) -> Int32) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: "Cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let output = Output(handle)
        let code = withExtendedLifetime(output) { produce(write, Unmanaged.passUnretained(output).toOpaque()) }
        if let failure = output.failure { throw failure }
        try checkSession(code)
    }

    /// Opens the file at `url` and lets `consume` stream from it.
    static func read<R>(_ url: URL, _ consume: (InputFunction, UnsafeMutableRawPointer) throws -> R) throws -> R {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let input = Input(handle)
        do {
            return try withExtendedLifetime(input) { try consume(read, Unmanaged.passUnretained(input).toOpaque()) }
        } catch {
            throw input.failure ?? error
        }
    }

    /// Reads every change of the file, so damaged bytes fail before anything is applied.
    static func validate(_ url: URL) throws {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var source = ChangesetFormat.FileSource(handle: handle)
        try ChangesetFormat.validate(&source)
    }

    /// Calls `body` with each change of the changeset in the file at `url`, read in pieces.
    static func forEachChange(in url: URL, _ body: (Change) throws -> Void) throws {
        try validate(url)
        try read(url) { input, context in
            var iterator: OpaquePointer?
            try checkSession(sqlite3changeset_start_strm(&iterator, input, context))
            try Changeset.walk(iterator, body)
        }
    }
}

extension Changeset {
    /// Calls `body` with each change of the changeset stored in the file at `url`, reading it in
    /// pieces (for changesets larger than memory).
    ///
    /// - Throws: `SQLiteError` for damaged bytes; the file's error; what `body` throws.
    public static func forEachChange(inFileAt url: URL, _ body: (Change) throws -> Void) throws {
        try SessionExtension.require()
        try ChangesetFile.forEachChange(in: url, body)
    }
}
