@testable import StrataSync
import Testing

/// The hub reads a push's former replica IDs as a replica keeps them: the newest 8, once each.
@Suite struct SyncFormerNamesTests {
    @Test func theNewestEightOnceEachInTheirOrder() {
        #expect(SyncHub.formerNames(nil) == [])
        #expect(SyncHub.formerNames([]) == [])
        #expect(SyncHub.formerNames(["a", "b"]) == ["a", "b"])
        let many = (0..<10_000).map { "r\($0 % 100)" } + ["old", "newest"]
        #expect(SyncHub.formerNames(many) == ["r94", "r95", "r96", "r97", "r98", "r99", "old", "newest"])
        // A name repeated among the newest is kept once, at its newest place.
        #expect(SyncHub.formerNames(["x", "y", "x"]) == ["y", "x"])
    }
}
