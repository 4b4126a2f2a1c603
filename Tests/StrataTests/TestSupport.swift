import Foundation
import Strata

/// A directory that is removed when the value goes away; each test gets its own.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// The cars table of SQift's README.
func makeCarsConnection() throws -> Connection {
    let connection = try Connection(storageLocation: .inMemory)
    try connection.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, type TEXT, price INTEGER)")
    try connection.run("INSERT INTO cars VALUES(?, ?, ?, ?)", 1, "Audi", "Sedan", 52_642)
    try connection.run("INSERT INTO cars VALUES(?, ?, ?, ?)", 2, "Mercedes", "Sedan", 57_127)
    try connection.run("INSERT INTO cars VALUES(?, ?, ?, ?)", 3, "Skoda", "Hatchback", 9_000)
    try connection.run("INSERT INTO cars VALUES(?, ?, ?, ?)", 4, "Volvo", "Wagon", 29_000)
    return connection
}

/// Runs `body` and returns the SQLiteError it throws, or nil if it throws none.
func sqliteError(_ body: () throws -> Void) -> SQLiteError? {
    do { try body(); return nil } catch let error as SQLiteError { return error } catch { return nil }
}
