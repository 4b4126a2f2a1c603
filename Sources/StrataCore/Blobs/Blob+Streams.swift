// Blob contents as streams: an async sequence of chunks out of a blob, async sequences of chunks or
// bytes into one, and copies to and from files, each holding one chunk in memory at a time.

import StrataKernel
import StrataSchema
import Foundation

extension Blob {
    /// The chunk size streams use unless told otherwise (64 KiB).
    public static let defaultChunkSize = 64 * 1024

    /// The blob's bytes from `offset` to its end, as chunks of at most `chunkSize` bytes.
    ///
    /// ```swift
    /// for try await chunk in blob.chunks(ofSize: 1 << 20) { try output.write(contentsOf: chunk) }
    /// ```
    /// Each chunk is read when the loop asks for it, so memory holds one chunk at a time.
    public func chunks(ofSize chunkSize: Int = Blob.defaultChunkSize, from offset: Int = 0) -> BlobChunks {
        BlobChunks(blob: self, chunkSize: max(1, chunkSize), offset: max(0, offset))
    }

    /// Writes the chunks `source` yields, one after another from `offset` on.
    ///
    /// ```swift
    /// try await blob.write(from: chunks)   // any AsyncSequence of Data
    /// ```
    /// - Returns: The number of bytes written.
    /// - Throws: What `source` throws; `SQLITE_ERROR` when the chunks go past the blob's end
    ///   (the bytes before it are written); the other errors of ``write(_:at:)-(Data,_)``.
    @discardableResult
    public func write<Source: AsyncSequence>(
        from source: Source, at offset: Int = 0, isolation: isolated (any Actor)? = #isolation
    ) async throws -> Int where Source.Element == Data {
        var position = offset
        for try await chunk in source {
            try write(chunk, at: position)
            position += chunk.count
        }
        return position - offset
    }

    /// Writes the bytes `source` yields (such as `FileHandle.bytes` or `URL.resourceBytes`) from
    /// `offset` on, gathered into chunks of `chunkSize` bytes.
    ///
    /// - Returns: The number of bytes written.
    /// - Throws: As ``write(from:at:isolation:)-(Source,_,_)``.
    @discardableResult
    public func write<Source: AsyncSequence>(
        bytes source: Source, at offset: Int = 0, chunkSize: Int = Blob.defaultChunkSize,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> Int where Source.Element == UInt8 {
        let chunkSize = max(1, chunkSize)
        var position = offset
        var buffer: [UInt8] = []
        buffer.reserveCapacity(chunkSize)
        for try await byte in source {
            buffer.append(byte)
            if buffer.count == chunkSize {
                try buffer.withUnsafeBytes { try write($0, at: position) }
                position += buffer.count
                buffer.removeAll(keepingCapacity: true)
            }
        }
        if !buffer.isEmpty {
            try buffer.withUnsafeBytes { try write($0, at: position) }
            position += buffer.count
        }
        return position - offset
    }

    // MARK: - Files

    /// Writes the blob's bytes from `offset` to its end to `fileHandle`, a chunk at a time.
    ///
    /// - Returns: The number of bytes written.
    /// - Throws: The blob's read errors, or the file's write error.
    @discardableResult
    public func copy(to fileHandle: FileHandle, from offset: Int = 0, chunkSize: Int = Blob.defaultChunkSize) throws -> Int {
        let chunkSize = max(1, chunkSize)
        var position = max(0, offset)
        guard position < count else { return 0 }
        var buffer = Data(count: min(chunkSize, count - position))
        while position < count {
            let length = min(chunkSize, count - position)
            if length < buffer.count { buffer = Data(count: length) }
            try buffer.withUnsafeMutableBytes { try read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<length]), at: position) }
            try fileHandle.write(contentsOf: buffer.prefix(length))
            position += length
        }
        return position - max(0, offset)
    }

    /// Writes the blob's bytes to a new file at `url` (replacing one that exists).
    ///
    /// - Returns: The number of bytes written.
    /// - Throws: The blob's read errors, or the file's create or write error.
    @discardableResult
    public func copy(to url: URL, chunkSize: Int = Blob.defaultChunkSize) throws -> Int {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let fileHandle = try FileHandle(forWritingTo: url)
        defer { try? fileHandle.close() }
        return try copy(to: fileHandle, chunkSize: chunkSize)
    }

    /// Fills the blob from `offset` on with what `fileHandle` reads until its end or the blob's.
    ///
    /// - Returns: The number of bytes written.
    /// - Throws: The file's read error; `SQLITE_ERROR` when the file holds more bytes than the
    ///   blob has room for; the blob's other write errors.
    @discardableResult
    public func copy(from fileHandle: FileHandle, at offset: Int = 0, chunkSize: Int = Blob.defaultChunkSize) throws -> Int {
        let chunkSize = max(1, chunkSize)
        var position = offset
        while true {
            let chunk = try autoreleasepoolIfAvailable { try fileHandle.read(upToCount: chunkSize) }
            guard let chunk, !chunk.isEmpty else { break }
            try write(chunk, at: position)
            position += chunk.count
        }
        return position - offset
    }

    /// Fills the blob from `offset` on with the contents of the file at `url`.
    ///
    /// - Returns: The number of bytes written.
    /// - Throws: As ``copy(from:at:chunkSize:)-(FileHandle,_,_)``, or the file's open error.
    @discardableResult
    public func copy(from url: URL, at offset: Int = 0, chunkSize: Int = Blob.defaultChunkSize) throws -> Int {
        let fileHandle = try FileHandle(forReadingFrom: url)
        defer { try? fileHandle.close() }
        return try copy(from: fileHandle, at: offset, chunkSize: chunkSize)
    }
}

/// Drains autoreleased Foundation buffers per chunk where an autorelease pool exists.
private func autoreleasepoolIfAvailable<T>(_ body: () throws -> T) rethrows -> T {
    #if canImport(ObjectiveC)
    return try autoreleasepool(invoking: body)
    #else
    return try body()
    #endif
}

/// A blob's bytes as an async sequence of `Data` chunks (see ``Blob/chunks(ofSize:from:)``).
///
/// Not `Sendable`: it reads through its blob's connection, on that connection's thread.
public struct BlobChunks: AsyncSequence {
    public typealias Element = Data

    let blob: Blob
    let chunkSize: Int
    let offset: Int

    public func makeAsyncIterator() -> Iterator {
        Iterator(blob: blob, chunkSize: chunkSize, position: offset)
    }

    /// Reads the next chunk when asked.
    public struct Iterator: AsyncIteratorProtocol {
        let blob: Blob
        let chunkSize: Int
        var position: Int

        /// The next chunk, or nil past the blob's end.
        ///
        /// - Throws: The blob's read errors (`SQLITE_ABORT` when the row changed underneath).
        public mutating func next() async throws -> Data? {
            try nextChunk()
        }

        /// The synchronous read under `next()`, for callers that are not async.
        public mutating func nextChunk() throws -> Data? {
            guard position < blob.count else { return nil }
            let length = Swift.min(chunkSize, blob.count - position)
            let chunk = try blob.read(at: position, length: length)
            position += length
            return chunk
        }
    }
}
