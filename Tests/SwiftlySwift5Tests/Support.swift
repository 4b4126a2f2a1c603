import StrataSwiftly

/// A directory of its own for each test, removed afterwards: SQLite.swiftly's connections open
/// files (`toNewDatabaseAt:` refuses one that exists), so every test starts from none.
final class TestDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("swiftly5-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
