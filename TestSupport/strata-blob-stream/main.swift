// Tests only: streams N MiB from a generated source into a blob of a database file and back out
// to /dev/null through Strata's blob streams, then prints its peak resident set size, so a test
// can check that a blob moves through constant memory.
//
// Usage: strata-blob-stream MEBIBYTES DIRECTORY
// Prints: `peak-rss-kib N` and `checksum N` on standard output.

import Foundation
import StrataSQift
import Strata
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Glibc)
let RUSAGE_SELF_WHO = RUSAGE_SELF.rawValue
#else
let RUSAGE_SELF_WHO = RUSAGE_SELF
#endif

func peakResidentKiB() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF_WHO, &usage)
    #if canImport(Darwin)
    return Int(usage.ru_maxrss) / 1024 // bytes there
    #else
    return Int(usage.ru_maxrss) // KiB on Linux
    #endif
}

/// `size` bytes as chunks made one at a time, each filled with its own index.
struct GeneratedChunks: AsyncSequence, AsyncIteratorProtocol {
    let size: Int
    let chunkSize: Int
    var produced = 0

    init(size: Int, chunkSize: Int) {
        self.size = size
        self.chunkSize = chunkSize
    }

    func makeAsyncIterator() -> GeneratedChunks { self }

    mutating func next() async -> Data? {
        guard produced < size else { return nil }
        let length = Swift.min(chunkSize, size - produced)
        let byte = UInt8(truncatingIfNeeded: produced / chunkSize)
        produced += length
        return Data(repeating: byte, count: length)
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let mebibytes = Int(arguments[1]), mebibytes > 0 else {
    FileHandle.standardError.write(Data("usage: strata-blob-stream MEBIBYTES DIRECTORY\n".utf8))
    exit(2)
}
let size = mebibytes << 20
let chunkSize = 64 * 1024
let path = URL(fileURLWithPath: arguments[2]).appendingPathComponent("blob-stream-\(getpid()).db").path

do {
    let connection = try Connection(storageLocation: .onDisk(path))
    try connection.execute("CREATE TABLE files(id INTEGER PRIMARY KEY, body BLOB)")
    try connection.run("INSERT INTO files(body) VALUES(?)", ZeroBlob(count: size))
    let rowID = connection.lastInsertRowID

    // The source makes each chunk when asked: nothing holds the whole blob.
    let source = GeneratedChunks(size: size, chunkSize: chunkSize)
    let writer = try connection.openBlob(table: "files", column: "body", rowID: rowID, writable: true)
    let written = try await writer.write(from: source)
    writer.close()

    let reader = try connection.openBlob(table: "files", column: "body", rowID: rowID)
    let sink = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/null"))
    var checksum = 0
    var read = 0
    for try await chunk in reader.chunks(ofSize: chunkSize) {
        checksum &+= Int(chunk.first ?? 0) &+ Int(chunk.last ?? 0)
        read += chunk.count
        try sink.write(contentsOf: chunk)
    }
    reader.close()
    guard written == size, read == size else {
        FileHandle.standardError.write(Data("wrote \(written), read \(read), expected \(size)\n".utf8))
        try? FileManager.default.removeItem(atPath: path)
        exit(1)
    }
    print("peak-rss-kib \(peakResidentKiB())")
    print("checksum \(checksum)")
    try? FileManager.default.removeItem(atPath: path)
} catch {
    FileHandle.standardError.write(Data("strata-blob-stream: \(error)\n".utf8))
    try? FileManager.default.removeItem(atPath: path)
    exit(1)
}
