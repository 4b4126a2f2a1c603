#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import Strata
import Testing
#if canImport(SQLite3)
import SQLite3
#endif

/// `strata check` names the SQLite in use and warns about the WAL-reset bug before 3.51.3.
@Suite struct CheckSQLiteVersionTests {
    @Test func checkNamesTheSQLiteAndWarnsWhenItHasTheWALResetBug() throws {
        let sandbox = try Sandbox()
        _ = try sandbox.makeBigDatabase("small.db", rows: 3)
        let result = try sandbox.strata("check", "small.db")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let version = String(cString: sqlite3_libversion())
        #expect(lines.contains("sqlite:             \(version)"))
        let warning = lines.first { $0.hasPrefix("warning:            ") }
        if sqlite3_libversion_number() < 3_051_003 {
            #expect(warning?.contains("older than 3.51.3") == true)
            #expect(warning?.contains("WAL-reset bug") == true)
        } else {
            #expect(warning == nil)
        }
    }
}
#endif
