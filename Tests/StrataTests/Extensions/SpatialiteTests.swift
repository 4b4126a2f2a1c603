import Foundation
import StrataSQift
import Testing
import Strata

/// Debian's mod_spatialite (libsqlite3-mod-spatialite, installed by `.ci/run`) loads through
/// `loadExtension(at:entryPoint:)` and answers its functions.
@Suite struct SpatialiteTests {
    static let candidates = [
        "/usr/lib/x86_64-linux-gnu/mod_spatialite.so",
        "/usr/lib/aarch64-linux-gnu/mod_spatialite.so",
        "/usr/lib/mod_spatialite.so",
        "/usr/local/lib/mod_spatialite.so"
    ]

    static var path: String? { candidates.first { FileManager.default.fileExists(atPath: $0) } }

    @Test(.enabled(if: path != nil, "mod_spatialite is not installed (.ci/run installs libsqlite3-mod-spatialite)"))
    func loadsSpatialiteAndCallsItsFunctions() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.loadExtension(at: try #require(Self.path), entryPoint: nil)
        let version: String? = try db.query("SELECT spatialite_version()")
        #expect(version?.isEmpty == false)
        let area: Double? = try db.query("SELECT ST_Area(GeomFromText('POLYGON((0 0, 4 0, 4 3, 0 3, 0 0))'))")
        #expect(area == 12)
        let distance: Double? = try db.query("SELECT ST_Distance(MakePoint(0, 0), MakePoint(3, 4))")
        #expect(distance == 5)
    }

    @Test(.enabled(if: path != nil, "mod_spatialite is not installed (.ci/run installs libsqlite3-mod-spatialite)"))
    func aDatabaseLoadsSpatialiteOnEveryConnection() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spatialite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try Database(
            storageLocation: .onDisk(directory.appendingPathComponent("geo.sqlite").path),
            extensions: [try #require(Self.path)])
        try database.executeWrite { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE places(name TEXT)") }
        let onReader: Double? = try database.executeRead { try $0.query("SELECT ST_X(MakePoint(7, 8))") }
        #expect(onReader == 7)
    }
}
