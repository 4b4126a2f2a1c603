import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore

// The READMEs write `if let state: DownloadState? = try connection.query(...)`.
// That compiles (checked during review), with Swift's own "adds an additional level of optional"
// warning, as it does against SQift. The same annotations are kept here without `if`, to keep the
// build free of warnings. They must still pick the optional query next to the non-optional one.
@Suite struct SQiftDoubleOptionalBehaviourTests {
    @Test func ifLetWithAnOptionalAnnotation() throws {
        let connection = try Connection()
        try connection.execute("CREATE TABLE downloads(name TEXT PRIMARY KEY, state INTEGER NOT NULL)")
        try connection.run("INSERT INTO downloads VALUES(?, ?)", "image1", DownloadState.downloading)
        let state: DownloadState? = try connection.query("SELECT state FROM downloads WHERE name = 'image1'")
        #expect(state == .downloading)
        let missing: DownloadState? = try connection.query("SELECT state FROM downloads WHERE name = 'none'")
        #expect(missing == nil)

        let phil = Person(id: 1, firstName: "Phil", lastName: "Knight", age: 79)
        try connection.execute("CREATE TABLE employees(id INTEGER PRIMARY KEY, employee BLOB NOT NULL)")
        try connection.run("INSERT INTO employees(employee) VALUES(?)", phil)
        let employee1: Person? = try connection.query("SELECT employee FROM employees WHERE id = 1")
        #expect(employee1 == phil)
        let required: Person = try connection.query("SELECT employee FROM employees WHERE id = ?", 1)
        #expect(required == phil)
    }
}
