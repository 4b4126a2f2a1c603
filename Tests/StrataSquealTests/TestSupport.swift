import Foundation
import StrataSqueal

/// A directory that is removed when the value goes away; each test gets its own.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-squeal-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Runs `body` and returns the SQLiteError it throws, or nil if it throws none.
func sqliteError(_ body: () throws -> Void) -> SQLiteError? {
    do { try body(); return nil } catch let error as SQLiteError { return error } catch { return nil }
}
