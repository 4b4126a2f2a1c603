// `assertQuery`: a query's SQL, arguments and rows checked against inline snapshots that
// InlineSnapshotTesting writes into the test file the first time (and on request), as
// swift-structured-queries' test support does for its queries.
#if Snapshots
// Behind the package trait `Snapshots`: swift-snapshot-testing (and what it brings) is fetched
// only by a package that enables it, as the `Server` trait keeps the server stack.
import Foundation
import InlineSnapshotTesting
import Testing
import XCTest
import Strata
import StrataRecords

/// Runs `query` on `database` and checks its SQL and arguments against `sql`, and its rows
/// against `results`.
///
/// Leave out a closure and the first run writes it into the test file, from what the query did
/// (and records a failure, so the new snapshot is reviewed):
///
/// ```swift
/// assertQuery("SELECT id, title FROM todo WHERE done = \(false)", in: database) {
///     """
///     SELECT id, title FROM todo WHERE done = ?
///     -- ?1: 0
///     """
/// } results: {
///     """
///     ┌────┬────────┐
///     │ id │ title  │
///     ├────┼────────┤
///     │ 1  │ 'milk' │
///     └────┴────────┘
///     """
/// }
/// ```
///
/// Values are written as SQL that evaluates to them (``QuerySnapshot/literal(_:)``), and the
/// snapshots are compared byte for byte (text in NFC and in NFD differ). An error from the
/// query, or a statement that writes, is recorded as a test failure. The read runs in one read
/// transaction of the database.
///
/// Give both closures, neither, or `sql` alone: InlineSnapshotTesting places a recorded `sql`
/// snapshot as the first trailing closure, so a call with `results:` and no `sql` loses its
/// `results` when the `sql` snapshot is recorded.
public func assertQuery(
    _ query: SQLFragment,
    in database: Database,
    sql: (() -> String)? = nil,
    results: (() -> String)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    function: StaticString = #function,
    line: UInt = #line,
    column: UInt = #column
) {
    let snapshot = Result { try database.read { try QuerySnapshot(of: query, on: $0) } }
    assertSnapshot(snapshot, sql: sql, results: results, fileID: fileID, filePath: filePath, function: function, line: line, column: column)
}

/// Runs `query` on `connection` and checks its SQL, arguments and rows against the snapshots.
public func assertQuery(
    _ query: SQLFragment,
    on connection: Connection,
    sql: (() -> String)? = nil,
    results: (() -> String)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    function: StaticString = #function,
    line: UInt = #line,
    column: UInt = #column
) {
    let snapshot = Result { try QuerySnapshot(of: query, on: connection) }
    assertSnapshot(snapshot, sql: sql, results: results, fileID: fileID, filePath: filePath, function: function, line: line, column: column)
}

/// Runs a records query (`Todo.where { !$0.done }`, a join's `select`, a `CTE`'s query) on
/// `database` and checks the SQL it renders, its arguments and its rows against the snapshots.
public func assertQuery<Query: SelectQuery>(
    _ query: Query,
    in database: Database,
    sql: (() -> String)? = nil,
    results: (() -> String)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    function: StaticString = #function,
    line: UInt = #line,
    column: UInt = #column
) {
    assertQuery(
        query.selectStatement, in: database, sql: sql, results: results,
        fileID: fileID, filePath: filePath, function: function, line: line, column: column)
}

private func assertSnapshot(
    _ snapshot: Result<QuerySnapshot, any Error>,
    sql: (() -> String)?,
    results: (() -> String)?,
    fileID: StaticString, filePath: StaticString, function: StaticString, line: UInt, column: UInt
) {
    let taken: QuerySnapshot
    switch snapshot {
    case .success(let value): taken = value
    case .failure(let error):
        let message = "The query threw: \(error)"
        // Whichever framework runs the test sees the failure, at the assertion's line.
        if Test.current != nil {
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: SourceLocation(fileID: "\(fileID)", filePath: "\(filePath)", line: Int(line), column: Int(column)))
        } else {
            XCTFail(message, file: filePath, line: line)
        }
        return
    }
    assertInlineSnapshot(
        of: taken.sql, as: exactLines, message: "The query's SQL or arguments differ from the snapshot",
        syntaxDescriptor: InlineSnapshotSyntaxDescriptor(trailingClosureLabel: "sql", trailingClosureOffset: 0),
        matches: sql,
        fileID: fileID, file: filePath, function: function, line: line, column: column)
    assertInlineSnapshot(
        of: taken.results, as: exactLines, message: "The query's rows differ from the snapshot",
        syntaxDescriptor: InlineSnapshotSyntaxDescriptor(trailingClosureLabel: "results", trailingClosureOffset: 1),
        matches: results,
        fileID: fileID, file: filePath, function: function, line: line, column: column)
}

/// Lines compared by their UTF-8 bytes. Swift's `==` (which `.lines` uses) takes canonically
/// equivalent text as equal, so `'café'` in NFC would match its NFD spelling, which SQLite stores
/// and compares as other bytes.
/// (Made per use: `Snapshotting` is not `Sendable`, so it cannot be a global constant.)
private var exactLines: Snapshotting<String, String> {
    Snapshotting<String, String>(
        pathExtension: "txt",
        diffing: .diff(toData: { Data($0.utf8) }, fromData: { String(decoding: $0, as: UTF8.self) }) { old, new in
            guard !old.utf8.elementsEqual(new.utf8) else { return nil }
            if let difference = Diffing<String>.lines.diffV2(old, new) { return difference }
            func scalars(_ text: String) -> String {
                text.unicodeScalars.map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16, uppercase: true))}" }.joined()
            }
            return ("The text differs only in Unicode normalization: expected \(scalars(old)), got \(scalars(new))", [])
        })
}
#endif
