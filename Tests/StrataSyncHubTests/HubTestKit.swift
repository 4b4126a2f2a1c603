#if Hub
import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import Logging
import StrataSync
import StrataSyncHub
import StrataTestSupport
import Testing

/// A hub on the `hub` folder of a fresh ``TemporaryDirectory``, with the space `space` made from
/// `schema`: keep `folder` for as long as the hub is used.
func folderHub(space: String = "team", schema: String) throws -> (folder: TemporaryDirectory, hub: SyncHub) {
    let folder = try TemporaryDirectory()
    let hub = try SyncHub(directory: folder.url.appendingPathComponent("hub"))
    try hub.createSpace(space) { try $0.execute(schema) }
    return (folder, hub)
}

/// Keys that sign and verify HS256 tokens with `key`.
func hmacKeys(_ key: HMACKey) async -> JWTKeyCollection {
    let keys = JWTKeyCollection()
    await keys.add(hmac: key, digestAlgorithm: .sha256)
    return keys
}

/// Serves `router` on a loopback port the kernel picks (logging to `logger` when given), runs
/// `body` with the port, then stops.
func serveLive(_ router: Router<SyncHubRequestContext>, logger: Logger? = nil, _ body: @Sendable (Int) async throws -> Void) async throws {
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
    try await app.test(.live) { client in
        try await body(try #require(client.port))
    }
}
#endif
