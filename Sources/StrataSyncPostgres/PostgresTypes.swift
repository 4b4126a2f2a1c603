// How a space's SQLite tables become PostgreSQL tables: identifiers, column types, and each
// value's way in and out (a value that does not fit is refused by name, never truncated).
#if Hub
import Foundation
import PostgresNIO
import Strata
import StrataSync

/// Why the PostgreSQL hub store refused something.
public enum PostgresHubError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The connection URL is not `postgres://user[:password]@host[:port]/database`.
    case invalidURL(String)
    /// A space, table or column name PostgreSQL cannot hold as it is (empty, a NUL character,
    /// longer than 63 bytes, or a name PostgreSQL reserves).
    case invalidIdentifier(String, reason: String)
    /// A table without a primary key: its rows could not be told apart in PostgreSQL.
    case tableWithoutPrimaryKey(String)
    /// Something the PostgreSQL store does not do yet.
    case unsupported(String)
    /// The server refused a statement: its SQLSTATE code and message (with detail and hint).
    case server(sqlState: String, message: String)

    public var description: String {
        switch self {
        case .invalidURL(let url):
            return "not a PostgreSQL URL (postgres://user[:password]@host[:port]/database): \(url.debugDescription)"
        case .invalidIdentifier(let name, let reason):
            return "the name \(name.debugDescription) cannot be a PostgreSQL identifier: \(reason)"
        case .tableWithoutPrimaryKey(let table):
            return "the table \(table) has no primary key, which the PostgreSQL store needs"
        case .unsupported(let what):
            return "the PostgreSQL hub store does not support \(what) yet"
        case .server(let state, let message):
            return "PostgreSQL refused a statement (SQLSTATE \(state)): \(message)"
        }
    }
}

extension PostgresHubError: LocalizedError {
    /// The description, for `localizedDescription` (Foundation's default is a domain and a code).
    public var errorDescription: String? { description }
}

extension PostgresHubError {
    /// A PostgreSQL error as one that says what the server said (PSQLError's description hides it);
    /// a failure that passes (see ``isTransient(sqlState:)``, or the connection lost) as
    /// `SyncHubStoreUnavailable`, so the request is sent again rather than refused.
    static func from(_ error: any Error) -> any Error {
        guard let error = error as? PSQLError else { return error }
        guard let info = error.serverInfo else {
            switch error.code {
            case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown:
                return SyncHubStoreUnavailable(reason: "the PostgreSQL connection was lost (\(error.code))")
            default:
                return PostgresHubError.server(sqlState: "", message: String(reflecting: error))
            }
        }
        var message = info[.message] ?? ""
        if let detail = info[.detail] { message += " (\(detail))" }
        if let hint = info[.hint] { message += "; hint: \(hint)" }
        let sqlState = info[.sqlState] ?? ""
        if isTransient(sqlState: sqlState) {
            return SyncHubStoreUnavailable(reason: "PostgreSQL SQLSTATE \(sqlState): \(message)")
        }
        return PostgresHubError.server(sqlState: sqlState, message: message)
    }

    /// Whether a statement failing with `sqlState` would likely succeed when run again: a
    /// connection failure (class 08), a serialization failure (40001), a deadlock (40P01), a
    /// server shutting down or starting (57P01, 57P02, 57P03), too many connections (53300).
    static func isTransient(sqlState: String) -> Bool {
        sqlState.utf8.starts(with: "08".utf8) || ["40001", "40P01", "57P01", "57P02", "57P03", "53300"].contains(sqlState)
    }
}

/// `name` as a PostgreSQL identifier: PostgreSQL quotes names as SQLite does (double quotes,
/// each `"` doubled), so this is the kernel's one quoting, on bytes.
func quotePostgresIdentifier(_ name: String) -> String { quoteIdentifier(name) }

/// Throws unless PostgreSQL keeps `name` as it is (it truncates names past 63 bytes).
func checkPostgresIdentifier(_ name: String) throws {
    if name.isEmpty { throw PostgresHubError.invalidIdentifier(name, reason: "it is empty") }
    if name.unicodeScalars.contains("\u{0}") { throw PostgresHubError.invalidIdentifier(name, reason: "it holds a NUL character") }
    if name.utf8.count > 63 {
        throw PostgresHubError.invalidIdentifier(name, reason: "it is \(name.utf8.count) bytes long; PostgreSQL keeps 63")
    }
}

/// A column's PostgreSQL type, from its SQLite declared type by SQLite's affinity rules.
///
/// | SQLite declared type (affinity) | PostgreSQL | values it takes |
/// | --- | --- | --- |
/// | contains `INT` (INTEGER) | `bigint` | integers |
/// | contains `CHAR`, `CLOB`, `TEXT` (TEXT) | `text` | valid UTF-8 text without NUL |
/// | contains `BLOB`, or none (BLOB) | `bytea` | blobs |
/// | contains `REAL`, `FLOA`, `DOUB` (REAL) | `double precision` | reals (with -0.0 and ±infinity); integers exactly representable |
/// | anything else (NUMERIC) | `numeric` | integers and reals (±infinity too) |
///
/// NULL fits every column. SQLite stores no NaN (it stores NULL instead), so none arrives from
/// a replica; a NaN written into PostgreSQL by a backend reads as NULL.
enum PostgresColumnType: String, Sendable {
    case bigint
    case text
    case bytea
    case double = "double precision"
    case numeric

    init(declaredType: String) {
        let type = declaredType.uppercased()
        if type.contains("INT") {
            self = .bigint
        } else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
            self = .text
        } else if type.contains("BLOB") || type.isEmpty {
            self = .bytea
        } else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") {
            self = .double
        } else {
            self = .numeric
        }
    }

    /// The expression that reads `column` (numeric reads as text, to keep its exact digits).
    func selectExpression(_ column: String) -> String {
        self == .numeric ? quotePostgresIdentifier(column) + "::text" : quotePostgresIdentifier(column)
    }

    /// The placeholder for parameter `index` (numeric travels as text).
    func placeholder(_ index: Int) -> String { self == .numeric ? "$\(index)::numeric" : "$\(index)" }
}

/// One column of a space's table in PostgreSQL.
struct PostgresColumn: Sendable {
    var name: String
    var type: PostgresColumnType
    var notNull: Bool
    /// The column's position in the primary key (1-based), 0 when it is not in it.
    var keyIndex: Int
    /// The column's DEFAULT, when SQLite's is a literal PostgreSQL reads the same way for the
    /// column's type (a number, a quoted string, NULL); other defaults are not carried over.
    var defaultLiteral: String? = nil

    /// SQLite's default text as a PostgreSQL literal of `type`, or nil. Checked character by
    /// character (DDL takes no parameters): only a number or a single-quoted string passes.
    static func defaultLiteral(_ text: String?, type: PostgresColumnType) -> String? {
        guard var text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        while text.hasPrefix("("), text.hasSuffix(")"), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
        if text.uppercased() == "NULL" { return nil }
        let scalars = Array(text.unicodeScalars)
        switch type {
        case .bigint, .double, .numeric:
            var body = scalars[...]
            if let first = body.first, first == "-" || first == "+" { body = body.dropFirst() }
            let digits = body.filter { ("0"..."9").contains($0) }.count
            let allowed = body.allSatisfy { ("0"..."9").contains($0) || (type != .bigint && ($0 == "." || $0 == "e" || $0 == "E" || $0 == "-" || $0 == "+")) }
            guard digits > 0, allowed, Double(text) != nil else { return nil }
            if type == .bigint, Int64(text) == nil { return nil }
            return text
        case .text:
            guard scalars.count >= 2, scalars.first == "'", scalars.last == "'", !scalars.contains("\u{0}") else { return nil }
            // Inside, a quote only as a doubled pair.
            var index = 1
            while index < scalars.count - 1 {
                if scalars[index] == "'" {
                    guard index + 1 < scalars.count - 1, scalars[index + 1] == "'" else { return nil }
                    index += 2
                } else {
                    index += 1
                }
            }
            return text
        case .bytea:
            return nil
        }
    }
}

/// One of a space's tables: its SQLite name and columns, in table order.
struct PostgresTable: Sendable {
    var name: String
    var columns: [PostgresColumn]
    /// The key columns' positions in `columns`, in key order.
    var keyPositions: [Int]
    /// The columns of each UNIQUE index.
    var uniqueColumns: [[String]] = []
    var keyColumns: [String] { keyPositions.map { columns[$0].name } }
    /// The column named `name` (SQLite's case-insensitive match), if any.
    func column(named name: String) -> PostgresColumn? {
        columns.first { IdentifierSet.key($0.name) == IdentifierSet.key(name) }
    }
}

/// Why a value does not fit: an entry refusal naming the table and the column.
func doesNotFit(_ table: String, _ column: PostgresColumn, _ reason: String) -> EntryRefusal {
    EntryRefusal(
        reason: .constraint, table: table, key: nil,
        message: "the value for \(table).\(column.name) cannot be stored in PostgreSQL's \(column.type.rawValue): \(reason)")
}

extension PostgresBindings {
    /// Binds `value` for `column` of `table`, or throws the refusal that names them.
    mutating func append(_ value: BindingValue, for column: PostgresColumn, of table: String) throws {
        switch (value, column.type) {
        case (.null, _):
            appendNull()
        case (.integer(let integer), .bigint):
            append(integer)
        case (.integer(let integer), .double):
            let real = Double(integer)
            guard real.isFinite, real < 0x1p63, Int64(real) == integer else {
                throw doesNotFit(table, column, "the integer \(integer) has no exact double")
            }
            append(real)
        case (.integer(let integer), .numeric):
            append(String(integer))
        case (.real(let real), .double):
            guard !real.isNaN else { throw doesNotFit(table, column, "NaN") }
            append(real)
        case (.real(let real), .numeric):
            guard !real.isNaN else { throw doesNotFit(table, column, "NaN") }
            append(real.isInfinite ? (real < 0 ? "-Infinity" : "Infinity") : "\(real)")
        case (.text(let text), .text):
            guard !text.unicodeScalars.contains("\u{0}") else { throw doesNotFit(table, column, "the text holds a NUL character") }
            append(text)
        case (.blob(let blob), .bytea):
            try append(blob)
        default:
            throw doesNotFit(table, column, "a value of storage class \(value.storageClass) (only \(column.type.takes))")
        }
    }
}

extension PostgresColumnType {
    var takes: String {
        switch self {
        case .bigint: return "integers"
        case .text: return "text"
        case .bytea: return "blobs"
        case .double: return "reals, and integers a double holds exactly"
        case .numeric: return "integers and reals"
        }
    }
}

extension PostgresCell {
    /// The cell's value as SQLite holds it, for a column of `type` read by its `selectExpression`.
    func bindingValue(_ type: PostgresColumnType) throws -> BindingValue {
        guard bytes != nil else { return .null }
        switch type {
        case .bigint: return .integer(try decode(Int64.self))
        case .double:
            let real = try decode(Double.self)
            return real.isNaN ? .null : .real(real)
        case .text: return .text(try decode(String.self))
        case .bytea: return .blob(try decode(Data.self))
        case .numeric: return Self.numericValue(text: try decode(String.self))
        }
    }

    /// A `numeric` as PostgreSQL prints it, kept as SQLite's NUMERIC affinity keeps it: an
    /// integer when it is one (a real that is exactly an integer too), a real otherwise; NaN,
    /// which SQLite never stores, as NULL.
    static func numericValue(text: String) -> BindingValue {
        if let integer = Int64(text) { return .integer(integer) }
        switch text {
        case "Infinity": return .real(.infinity)
        case "-Infinity": return .real(-.infinity)
        case "NaN": return .null
        default:
            guard let real = Double(text) else { return .null }
            if real == real.rounded(), abs(real) < 0x1p63 { return .integer(Int64(real)) }
            return .real(real)
        }
    }
}
#endif
