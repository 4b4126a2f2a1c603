// `assertQuery`: a query's SQL, arguments and rows checked against inline snapshots that
// InlineSnapshotTesting writes into the test file the first time (and on request), as
// swift-structured-queries' test support does for its queries.
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
/// Values are written as SQL that evaluates to them (``QuerySnapshot/literal(_:)``). An error
/// from the query is recorded as a test failure. The read runs in a snapshot of the database.
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
        of: taken.sql, as: .lines, message: "The query's SQL or arguments differ from the snapshot",
        syntaxDescriptor: InlineSnapshotSyntaxDescriptor(trailingClosureLabel: "sql", trailingClosureOffset: 0),
        matches: sql,
        fileID: fileID, file: filePath, function: function, line: line, column: column)
    assertInlineSnapshot(
        of: taken.results, as: .lines, message: "The query's rows differ from the snapshot",
        syntaxDescriptor: InlineSnapshotSyntaxDescriptor(trailingClosureLabel: "results", trailingClosureOffset: 1),
        matches: results,
        fileID: fileID, file: filePath, function: function, line: line, column: column)
}
