// StrataRecords: the `@Record` macro and what its generated code runs on. Generated members read
// columns by index (resolved once per statement), bind positionally through each type's Binding
// fast path, and reuse statements from the connection's one statement cache.
@_exported import Strata
import Foundation

/// Makes a struct a ``Record``: row mapping, persistence, typed columns and a table definition,
/// generated from its stored properties.
///
/// ```swift
/// @Record                       // table "player"; @Record(table: "players") overrides it
/// struct Player: Equatable {
///     @PrimaryKey var id: Int64?         // nil on insert: assigned and written back
///     var name: String
///     @Column("score_total") var score: Int
///     var team: String?
/// }
/// try Player.createTable(db)
/// var player = Player(id: nil, name: "Ann", score: 12, team: nil)
/// try player.insert(db)                                   // player.id is set now
/// let top = try Player.where { $0.score > 10 }.order(by: \.score, .descending).fetchAll(db)
/// ```
/// Property types are any `Binding` (the built-in types, `Date`, `URL`, `Data`, Codable and
/// custom bindings), optionals of them, and `RawRepresentable` enums whose raw value is one. The
/// macro refuses a class, a generic struct, a type without stored properties, and properties
/// whose declared type cannot be a column (functions, tuples, bare arrays and dictionaries); a
/// named type it cannot see through is checked by the compiler where the generated code binds and
/// reads it. `table` must be a string literal: it is written into SQL when the macro expands.
/// `columnNaming` says how a property's name becomes its column's (see ``ColumnNaming``); it too
/// is read when the macro expands, so it is written out (`.snakeCase`), not computed.
@attached(member, names: named(recordConstraints))
@attached(
    extension, conformances: Record, QueryableRecord, names: named(tableName), named(recordColumns), named(primaryKeyIndex), named(Columns), named(columns),
    named(init(row:)), named(init(row:columnIndexes:)), named(init(columnOrderedRow:)), named(init(columnOrderedRow:startingAt:)),
    named(bindRecordColumns(to:order:)), named(hasNilPrimaryKey), named(recordDidInsert(rowID:)), named(recordStatements))
public macro Record(table: String? = nil, columnNaming: ColumnNaming = .propertyName) = #externalMacro(module: "StrataRecordsMacros", type: "RecordMacro")

/// Makes a struct a ``ViewRecord``: the rows of a view, read and queried like a table's records,
/// with no persistence calls (writing one is a compile error).
///
/// ```swift
/// @Record(view: "author_totals") struct AuthorTotal { var authorId: Int64; var books: Int }
/// extension AuthorTotal {
///     static let definition = Book.group(by: \.authorId).select { ($0.authorId, $0.id.count()) }
/// }
/// try AuthorTotal.createView(db)                          // CREATE VIEW IF NOT EXISTS …
/// let busy = try AuthorTotal.where { $0.books > 3 }.fetchAll(db)
/// ```
/// The view's columns are the properties', in declaration order, and the definition selects
/// one value per property in that order. `view` must be a string literal.
@attached(member, names: named(recordConstraints))
@attached(
    extension, conformances: ViewRecord, QueryableRecord, names: named(tableName), named(recordColumns), named(primaryKeyIndex), named(Columns), named(columns),
    named(init(row:)), named(init(row:columnIndexes:)), named(init(columnOrderedRow:)), named(init(columnOrderedRow:startingAt:)),
    named(bindRecordColumns(to:order:)), named(hasNilPrimaryKey), named(recordDidInsert(rowID:)), named(recordStatements))
public macro Record(view: String, columnNaming: ColumnNaming = .propertyName) = #externalMacro(module: "StrataRecordsMacros", type: "RecordMacro")

/// How `@Record` names the column of a property that has no `@Column("name")`: an existing
/// database's naming convention is met once, on the record, instead of on every property.
///
/// ```swift
/// @Record(table: "posts", columnNaming: .snakeCase)
/// struct Post {
///     @PrimaryKey var id: Int64?
///     var authorId: Int64              // column "author_id"
///     var URLString: String            // column "url_string"
///     @Column("body") var text: String // @Column wins: column "body"
/// }
/// ```
/// Typed queries, joins, constraints and indexes all use the mapped names; SQL written by hand
/// (`@Check("…")`, raw queries) must name the columns as the table spells them.
public enum ColumnNaming: Sendable {
    /// The property's name as written (without backticks): the default.
    case propertyName
    /// The property's name in snake_case. A word starts at an uppercase letter that follows a
    /// lowercase letter or a digit, and at the last uppercase letter of a run of them that a
    /// lowercase letter follows; an underscore is inserted there and every letter is lowercased
    /// (`authorId` → `author_id`, `URLString` → `url_string`, `userID` → `user_id`, `score2` →
    /// `score2`, `version2Beta` → `version2_beta`). Only ASCII letters have a case here, as in
    /// SQLite's own name comparison: other characters, digits and underscores are kept as written
    /// and start no word (`caféAu` → `caféau`, `ÉtatX` → `État_x`). Two properties that map to one
    /// column (as SQLite compares names) are refused when the macro expands.
    case snakeCase
}

/// Marks the record's primary key. An optional integer key left nil is assigned by SQLite on
/// insert and written back to the value.
@attached(peer)
public macro PrimaryKey() = #externalMacro(module: "StrataRecordsMacros", type: "RecordPropertyMarkerMacro")

/// Stores a `Codable` record property as JSON text, which SQLite's `json_*` functions read, and
/// reads it back: arrays, dictionaries and nested structs become columns.
///
/// ```swift
/// @Record struct Article: Equatable {
///     @PrimaryKey var id: Int64?; var title: String
///     @JSON var tags: [String]
///     @JSON var meta: [String: Int]?     // nil is SQL NULL
/// }
/// try Article.where { $0.tags.contains("swift") && $0.meta.json("$.pages", as: Int.self) > 100 }.fetchAll(db)
/// ```
/// A value that is not the property's JSON throws ``RecordError/invalidJSON(column:record:reason:)``.
@attached(peer)
public macro JSON() = #externalMacro(module: "StrataRecordsMacros", type: "RecordPropertyMarkerMacro")

/// Names the column a record property maps to, when it is not the property's name (a string
/// literal: it is written into SQL when the macro expands).
@attached(peer)
public macro Column(_ name: String) = #externalMacro(module: "StrataRecordsMacros", type: "RecordPropertyMarkerMacro")

/// Gives a record property's column a `DEFAULT`, so `RecordSchema` can add a new non-optional
/// column to a table that already has rows with `ALTER TABLE … ADD COLUMN … NOT NULL DEFAULT …`:
/// the existing rows get the default, and no rebuild is needed.
///
/// ```swift
/// @Record struct Player {
///     @PrimaryKey var id: Int64?
///     var name: String
///     @Default(0) var score: Int                     // "score" INTEGER NOT NULL DEFAULT 0
///     @Default("") @Column("team_name") var team: String
///     @Default(false) var retired: Bool               // stored as 0
/// }
/// ```
/// The value is a literal of the property's type: an integer, a floating-point number, a string
/// without interpolation, `true`, `false`, or `nil` for an optional. It only shapes the schema:
/// reads and writes of a record still carry every property's value. `checkSchema` does not
/// compare defaults, and a table whose column lacks one is not rebuilt to gain it.
@attached(peer)
public macro Default(_ value: Any?) = #externalMacro(module: "StrataRecordsMacros", type: "RecordPropertyMarkerMacro")

/// A struct mapped to a table by `@Record`; the macro writes every requirement.
///
/// A record is an `ExpressibleByRow`, so `let players: [Player] = try db.query("SELECT * FROM player")`
/// works as for hand-written models. Its rows are read and queried as a ``QueryableRecord``'s
/// and written by the persistence calls (`insert`, `update`, `upsert`, `delete`), which only a
/// table's record has.
public protocol Record: QueryableRecord {}

/// A struct whose rows typed queries read: a table's ``Record``, or a view's ``ViewRecord``
/// (`@Record(view:)`), which has no persistence calls, so writing one does not compile.
public protocol QueryableRecord: ExpressibleByRow, JoinMember where Joined == Self {
    /// The table's name: the type name with its first letter lowercased, or `@Record(table:)`.
    static var tableName: String { get }
    /// The columns, one per stored property, in declaration order.
    static var recordColumns: [RecordColumn] { get }
    /// The position of the primary key in ``recordColumns``, if the record has one.
    static var primaryKeyIndex: Int? { get }
    /// One typed column per stored property, for the query builder.
    associatedtype Columns: RecordColumnSet
    /// The typed columns.
    static var columns: Columns { get }
    /// Binds the properties positionally, in the order `order` names.
    func bindRecordColumns(to binder: inout RecordBinder, order: RecordBindOrder) throws
    /// Whether the primary key is an optional left nil (SQLite assigns it on insert).
    var hasNilPrimaryKey: Bool { get }
    /// Writes back the rowid SQLite assigned on insert, if the key was left nil.
    mutating func recordDidInsert(rowID: Int64)
    /// The constraints the properties declare (`@References`, `@Indexed`, `@Unique`, `@Check`),
    /// in declaration order; read when the table is created or checked.
    static var recordConstraints: [RecordConstraint] { get }
    /// The type's SQL and statement-cache keys, built once.
    static var recordStatements: RecordStatements { get }
    /// Reads the record from `row`, whose statement has each column at `columnIndexes` (in
    /// ``recordColumns`` order): the fetch loops resolve the indexes once per statement.
    init(row: Row, columnIndexes: [Int32]) throws
    /// Reads the record from a row whose columns are the record's, in declaration order: the
    /// statements this module builds select exactly that list, so their rows need no lookup.
    /// The row is borrowed, so the fetch loop passes it without a retain per row.
    init(columnOrderedRow row: borrowing Row) throws
    /// Reads the record from a row whose columns at `offset` and after are the record's, in
    /// declaration order: one record of a joined row.
    init(columnOrderedRow row: borrowing Row, startingAt offset: Int32) throws
}

/// A record's typed columns, generated by `@Record`: every column qualified by one table name
/// or alias, so the same record can appear twice in a join.
public protocol RecordColumnSet: Sendable {
    /// The columns, each qualified by `qualifier` (nil: unqualified).
    init(qualifier: String?)
}

/// Which properties a generated bind call binds, in what order.
public enum RecordBindOrder: Sendable {
    /// Every column, in declaration order (INSERT, upsert).
    case all
    /// The columns other than the key, then the key (UPDATE … WHERE key = ?).
    case keyLast
    /// The key alone (DELETE, fetch by key).
    case keyOnly
}

/// One column of a record's table, as declared by its property.
public struct RecordColumn: Sendable, Equatable {
    /// The column's name.
    public let name: String
    /// The declared SQL type (`INTEGER`, `REAL`, `TEXT`, `BLOB`), or empty for a custom binding
    /// whose storage class is not one of those four.
    public let sqlType: String
    /// Whether the property is optional (the column allows NULL).
    public let isOptional: Bool
    /// Whether the column is the primary key.
    public let isPrimaryKey: Bool
    /// The column's `DEFAULT` (`@Default`), or nil for none; `.null` is `DEFAULT NULL`.
    public let defaultValue: BindingValue?

    /// Describes a column by its parts (the macro uses the `describing` forms, which derive the
    /// SQL type and nullability from the property type).
    public init(name: String, sqlType: String, isOptional: Bool, isPrimaryKey: Bool, defaultValue: BindingValue? = nil) {
        self.name = name
        self.sqlType = sqlType
        self.isOptional = isOptional
        self.isPrimaryKey = isPrimaryKey
        self.defaultValue = defaultValue
    }

    /// The column with `value` as its `DEFAULT` (`@Default(value)`). `type` is the property's
    /// type, so the compiler checks the literal against it.
    public func defaulting<T: Bindable>(to value: T, as type: T.Type) -> RecordColumn {
        RecordColumn(name: name, sqlType: sqlType, isOptional: isOptional, isPrimaryKey: isPrimaryKey, defaultValue: value.bindingValue)
    }

    /// The one type mapping; a binding outside the four storage classes declares no type.
    static func sqlType<T: Extractable>(of type: T.Type) -> String {
        sqlDeclaredType(of: T.self, unmapped: .none)
    }

    /// A non-optional `Binding` property.
    public static func describing<T: Extractable>(_ name: String, as type: T.Type, isPrimaryKey: Bool) -> RecordColumn {
        RecordColumn(name: name, sqlType: sqlType(of: T.self), isOptional: false, isPrimaryKey: isPrimaryKey)
    }

    /// A `@JSON` property, stored as JSON text.
    public static func describingJSON<T: Codable>(_ name: String, as type: T.Type, isPrimaryKey: Bool) -> RecordColumn {
        RecordColumn(name: name, sqlType: "TEXT", isOptional: false, isPrimaryKey: isPrimaryKey)
    }

    /// An optional `@JSON` property (nil is SQL NULL).
    public static func describingJSON<T: Codable>(_ name: String, as type: T?.Type, isPrimaryKey: Bool) -> RecordColumn {
        RecordColumn(name: name, sqlType: "TEXT", isOptional: true, isPrimaryKey: isPrimaryKey)
    }

    /// An optional `Binding` property.
    public static func describing<T: Extractable>(_ name: String, as type: T?.Type, isPrimaryKey: Bool) -> RecordColumn {
        RecordColumn(name: name, sqlType: sqlType(of: T.self), isOptional: true, isPrimaryKey: isPrimaryKey)
    }

    /// A `RawRepresentable` property stored as its raw value.
    public static func describing<T: RawRepresentable>(_ name: String, as type: T.Type, isPrimaryKey: Bool) -> RecordColumn where T.RawValue: Extractable {
        RecordColumn(name: name, sqlType: sqlType(of: T.RawValue.self), isOptional: false, isPrimaryKey: isPrimaryKey)
    }

    /// An optional `RawRepresentable` property stored as its raw value.
    public static func describing<T: RawRepresentable>(_ name: String, as type: T?.Type, isPrimaryKey: Bool) -> RecordColumn where T.RawValue: Extractable {
        RecordColumn(name: name, sqlType: sqlType(of: T.RawValue.self), isOptional: true, isPrimaryKey: isPrimaryKey)
    }

    /// A property that is both a `Binding` and `RawRepresentable` binds as itself.
    public static func describing<T: Extractable & RawRepresentable>(_ name: String, as type: T.Type, isPrimaryKey: Bool) -> RecordColumn
    where T.RawValue: Extractable {
        RecordColumn(name: name, sqlType: sqlType(of: T.self), isOptional: false, isPrimaryKey: isPrimaryKey)
    }

    /// The optional form of the above.
    public static func describing<T: Extractable & RawRepresentable>(_ name: String, as type: T?.Type, isPrimaryKey: Bool) -> RecordColumn
    where T.RawValue: Extractable {
        RecordColumn(name: name, sqlType: sqlType(of: T.self), isOptional: true, isPrimaryKey: isPrimaryKey)
    }
}

/// What record reads, writes and queries report when they cannot do what was asked.
public enum RecordError: Error, CustomStringConvertible, Equatable {
    /// The row has no column for a property.
    case missingColumn(column: String, record: String, available: [String])
    /// A non-optional property's column holds NULL.
    case nullInNonOptional(column: String, record: String)
    /// A column's value does not convert to the property's type.
    case valueMismatch(column: String, record: String, expected: String, storageClass: String)
    /// A `@JSON` property's column does not hold the property's JSON.
    case invalidJSON(column: String, record: String, reason: String)
    /// The operation needs a primary key and the record declares none.
    case noPrimaryKey(record: String)
    /// `update` found no row with the record's key.
    case notFound(record: String)
    /// A typed query asks what the operation does not accept (a join in a delete, a limit in an
    /// update, ...): the text says what to change.
    case unsupported(String)
    /// A row a nearest-neighbour scan ranked was gone when its record was read: the table changed
    /// between a parallel scan's reads (each reader reads its own snapshot). Run the query again.
    case rowChanged(rowID: Int64)

    /// What happened and how to fix it, naming the record type and column.
    public var description: String {
        switch self {
        case .missingColumn(let column, let record, let available):
            return Self.column(
                column, of: record,
                "is missing from the row (columns: \(available.joined(separator: ", "))): select it, or rename the property's column with @Column")
        case .nullInNonOptional(let column, let record):
            return Self.column(column, of: record, "holds NULL, but its property is not optional: make the property optional or fix the data")
        case .valueMismatch(let column, let record, let expected, let storageClass):
            let hint = expected == "\(Date.self)" ? " (\(SQLiteDateText.acceptedLayouts))" : ""
            return Self.column(column, of: record, "holds \(storageClass), which does not convert to \(expected)\(hint)")
        case .invalidJSON(let column, let record, let reason):
            return Self.column(column, of: record, "does not hold the property's JSON: \(reason)")
        case .noPrimaryKey(let record):
            return "Record \(record) declares no @PrimaryKey, which this operation needs"
        case .notFound(let record):
            return "No \(record) row has this record's primary key: nothing was updated"
        case .unsupported(let message):
            return message
        case .rowChanged(let rowID):
            return "The row with rowid \(rowID) changed while a nearest-neighbour scan ran; run it again"
        }
    }

    /// The column errors all open by naming the column and its record the same way.
    private static func column(_ column: String, of record: String, _ problem: String) -> String {
        "Column '\(column)' of record \(record) \(problem)"
    }
}

extension RecordError: LocalizedError {
    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}
