import Foundation
import Testing
import StrataRecords

@Record
struct Player: Equatable, Sendable {
    @PrimaryKey var id: Int64?
    var name: String
    @Column("score_total") var score: Int
    var team: String?
}

enum Position: String, Sendable {
    case keeper, defender, forward
}

struct Tag: Codable, Equatable, Sendable, CodableBinding {
    var label: String
}

@Record(table: "matches")
struct Match: Equatable, Sendable {
    @PrimaryKey var code: String
    var playedAt: Date
    var venue: URL?
    var payload: Data
    var position: Position
    var backup: Position?
    var tag: Tag
    var rating: Double?
    var isFinal: Bool
    var computed: String { code.uppercased() }
    static let unrelated = 5
}

@Record
struct HTTPRequest: Equatable {
    var path: String
}

@Record
struct LogLine: Equatable {
    var message: String
}

/// A binding whose bind reports SQLite's "bind or column index out of range", to check that a
/// failed bind is thrown as the connection's error.
struct Unbindable: Binding, Equatable, Sendable {
    typealias BindingType = Int64
    var bindingValue: BindingValue { .integer(0) }
    func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 { 25 } // SQLITE_RANGE
    static func fromBindingValue(_ value: Any) -> Unbindable? { Unbindable() }
}

@Record
struct Broken: Equatable {
    @PrimaryKey var id: Int64?
    var value: Unbindable
}

/// Names SQL would trip over: a space and a quote in the table, a quote and a keyword in columns.
@Record(table: "odd \"table\"")
struct Odd: Equatable, Sendable {
    @PrimaryKey @Column("key \"id\"") var id: Int64?
    @Column("select") var select: String
}
