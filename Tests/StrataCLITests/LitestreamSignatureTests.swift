#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Strata
import Testing

/// The crash test excuses exactly one kind of unreadable restore (Litestream's unpublished
/// commit); this pins down what that signature is and is not.
struct LitestreamSignatureTests {
    @Test func aHeaderCountingMorePagesThanTheFileHoldsIsTheSignatureAndNothingElseIs() throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("copy.sqlite")
        let connection = try Connection(storageLocation: .onDisk(path))
        try connection.execute("CREATE TABLE t(x); INSERT INTO t SELECT zeroblob(3000) FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3)")
        #expect(!Litestream.showsUnpublishedCommit(path), "an intact database")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: UInt64(size - 4096))
        try handle.close()
        #expect(Litestream.showsUnpublishedCommit(path), "one page short of its header")
        try Data("not a database at all, but long enough to have a header of a hundred bytes...........".utf8)
            .write(to: URL(fileURLWithPath: sandbox.path("other.bin")))
        #expect(!Litestream.showsUnpublishedCommit(sandbox.path("other.bin")))
        #expect(!Litestream.showsUnpublishedCommit(sandbox.path("missing.sqlite")))
    }
}
#endif
