// Pulls that stream: one long-lived response on which the hub sends each new version as it
// commits, as server-sent events (`text/event-stream`), so a write costs a waiting replica one
// frame instead of an answer and a new request.
import Foundation
import Strata

/// One frame of a pull stream: the hub's answer to a pull after ``after``.
///
/// A replica applies a frame only when its cursor is still ``after``; otherwise (another pull
/// moved it) it closes the stream and opens another from where it is.
public struct SyncPullFrame: Sendable {
    /// The cursor the frame answers from.
    public var after: Int64
    /// The answer, as a pull after ``after`` would have had it.
    public var response: SyncPullResponse

    /// A frame answering a pull after `after`.
    public init(after: Int64, response: SyncPullResponse) {
        self.after = after
        self.response = response
    }
}

extension SyncWire {
    /// The media type of a pull stream: server-sent events, readable by `curl -N` and an
    /// `EventSource`.
    public static let pullStreamContentType = "text/event-stream"

    /// A frame as one server-sent event: `event: pull`, `id:` the version it reaches, and one
    /// `data:` line holding the cursor it answers from and the pull answer's wire body in
    /// base64url (an event's data is text).
    public static func encodeStreamEvent(_ frame: SyncPullFrame) throws -> Data {
        let reached = frame.response.entries.last?.version ?? frame.after
        var event = Array("event: pull\nid: \(reached)\ndata: \(frame.after) ".utf8)
        event += base64URLBytes(try encode(frame.response))
        event.append(contentsOf: "\n\n".utf8)
        return Data(event)
    }

    /// What the hub sends on an idle stream now and then: a comment line, which readers skip, so
    /// that no proxy or client takes a quiet stream for a dead one.
    public static let streamHeartbeat = Data(": idle\n\n".utf8)
}

/// Reads a pull stream's server-sent events from bytes that arrive in chunks of any size (a line,
/// a frame or a CRLF split anywhere), as the event-stream format defines them: lines end in LF,
/// CR or CRLF, comments and unknown fields are skipped, and a blank line ends an event.
public struct SyncPullStreamReader: Sendable {
    /// The longest line accepted: a frame is one line, and its page is bounded by the hub's
    /// pull limits; past this the stream is refused rather than held in memory.
    public static let maximumLineBytes = 256 << 20

    private var line: [UInt8] = []
    private var lastWasCR = false
    private var event: [UInt8] = []
    private var data: [UInt8] = []
    private var hasData = false

    /// A reader at the start of a stream.
    public init() {}

    /// Reads `bytes`, returning the frames they complete.
    /// - Throws: ``SyncError/refused(_:)`` for a frame that is not a pull answer, or a line over
    ///   ``maximumLineBytes``.
    public mutating func read(_ bytes: some Sequence<UInt8>) throws -> [SyncPullFrame] {
        // Contiguous bytes (Data, arrays, a NIO buffer's view) are scanned in place; a line's
        // bytes are copied once, in runs, never byte by byte through a generic iterator.
        if let frames = try bytes.withContiguousStorageIfAvailable({ try read(buffer: UnsafeRawBufferPointer($0)) }) { return frames }
        return try Array(bytes).withUnsafeBytes { try read(buffer: $0) }
    }

    private mutating func read(buffer: UnsafeRawBufferPointer) throws -> [SyncPullFrame] {
        var frames: [SyncPullFrame] = []
        var index = 0
        let count = buffer.count
        while index < count {
            if lastWasCR, buffer[index] == 0x0A {
                // The LF of a CRLF: its line already ended at the CR.
                lastWasCR = false
                index += 1
                continue
            }
            var end = index
            while end < count, buffer[end] != 0x0A, buffer[end] != 0x0D { end += 1 }
            guard line.count + (end - index) <= Self.maximumLineBytes else {
                throw SyncError.refused("a pull stream line is longer than \(Self.maximumLineBytes) bytes")
            }
            line.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[index..<end]))
            guard end < count else {
                lastWasCR = false
                break
            }
            lastWasCR = buffer[end] == 0x0D
            index = end + 1
            if let frame = try endLine() { frames.append(frame) }
        }
        return frames
    }

    private mutating func endLine() throws -> SyncPullFrame? {
        defer { line.removeAll(keepingCapacity: line.count <= 1 << 16) }
        if line.isEmpty {
            defer {
                event = []
                data = []
                hasData = false
            }
            guard hasData, event.isEmpty || event == Array("pull".utf8) else { return nil }
            return try Self.frame(data)
        }
        if line.first == UInt8(ascii: ":") { return nil }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        let field = line[..<colon]
        var value = colon < line.endIndex ? line[(colon + 1)...] : []
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        if field.elementsEqual("data".utf8) {
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
        } else if field.elementsEqual("event".utf8) {
            event = Array(value)
        }
        return nil
    }

    /// `<after> <base64url body>` as a frame.
    private static func frame(_ data: [UInt8]) throws -> SyncPullFrame {
        guard let space = data.firstIndex(of: UInt8(ascii: " ")),
            let after = Int64(String(decoding: data[..<space], as: UTF8.self)), after >= 0,
            let body = SyncWire.data(fromBase64URLBytes: data[(space + 1)...])
        else { throw SyncError.refused("a pull stream frame is not a cursor and a base64url pull answer") }
        return SyncPullFrame(after: after, response: try SyncWire.decodePullResponse(body))
    }
}
