import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

// SQLiteORM-Swift's extension points, as upstream declares them: a custom column type conforms
// to `Bindable` (how it binds, through a `Binder`) and `ConstructableFromSQLiteValue` (how it
// reads, from an `SQLiteValue`). These `Bindable` and `Statement` are the ORM's; core's keep
// their names in `Strata` (`Strata.Bindable`, `Strata.Statement`).

/// One value of a result row, as a custom column type reads it. Reads convert as SQLite does
/// (`integer` of the text `"42"` is 42).
public protocol SQLiteValue: AnyObject {
    /// Whether the value refers to a real column of a current row.
    var isValid: Bool { get }
    /// The value as an integer (SQLite's conversion; 0 for NULL).
    var integer: Int { get }
    /// The value as a floating-point number (SQLite's conversion; 0.0 for NULL).
    var double: Double { get }
    /// The value as text (SQLite's conversion; `""` for NULL).
    var text: String { get }
    /// Whether the value is SQL NULL.
    var isNull: Bool { get }
}

/// A type that can be built from a column value.
///
/// ```swift
/// extension Money: ConstructableFromSQLiteValue {
///     init(sqliteValue: SQLiteValue) { self.init(cents: sqliteValue.integer) }
/// }
/// ```
public protocol ConstructableFromSQLiteValue {
    /// Builds the value from what a column holds.
    init(sqliteValue: SQLiteValue)
}

/// What a custom column type binds itself through.
public protocol Binder: AnyObject {
    /// Binds an integer; returns SQLite's result code.
    func bindInt(value: Int) -> Int32
    /// Binds a floating-point number; returns SQLite's result code.
    func bindDouble(value: Double) -> Int32
    /// Binds text; returns SQLite's result code.
    func bindText(value: String) -> Int32
    /// Binds NULL; returns SQLite's result code.
    func bindNull() -> Int32
}

/// SQLiteORM-Swift's bindable value: binds itself through a ``Binder`` and names its column type.
///
/// ```swift
/// extension Money: Bindable {
///     func bind(to binder: Binder) -> Int32 { binder.bindInt(value: cents) }
///     static func sqliteTypeName() -> String { "INTEGER" }
/// }
/// ```
/// Core's bindable protocol, which SQift code uses, is `Strata.Bindable`.
public protocol Bindable {
    /// Binds the value; returns SQLite's result code.
    func bind(to binder: Binder) -> Int32
    /// The column type `syncSchema` declares for the type (`INTEGER`, `REAL`, `TEXT`, `BLOB`).
    static func sqliteTypeName() -> String
}

/// SQLiteORM-Swift's statement protocol, for code that implements or mocks it. Strata's own
/// prepared statement is `Strata.Statement`.
public protocol Statement: AnyObject {
    /// Steps the statement; returns SQLite's result code.
    func step() -> Int32
    /// The number of result columns.
    func columnCount() -> Int32
    /// The value of a result column of the current row.
    func columnValue(columnIndex: Int) -> SQLiteValue
    /// A result column as text.
    func columnText(index: Int) -> String
    /// A result column as an integer.
    func columnInt(index: Int) -> Int
    /// A result column as a floating-point number.
    func columnDouble(index: Int) -> Double
    /// The value of a result column of the current row.
    func columnValuePointer(with columnIndex: Int) -> SQLiteValue
}

// MARK: - Built-in conformances (SQLite's conversions, as upstream reads them)

extension Int: ConstructableFromSQLiteValue {
    /// The value's integer.
    public init(sqliteValue: SQLiteValue) { self = sqliteValue.integer }
}

extension UInt: ConstructableFromSQLiteValue {
    /// The value's integer, by bit pattern (as UInt values are stored).
    public init(sqliteValue: SQLiteValue) { self = UInt(bitPattern: sqliteValue.integer) }
}

extension Int64: ConstructableFromSQLiteValue {
    /// The value's integer.
    public init(sqliteValue: SQLiteValue) { self = Int64(sqliteValue.integer) }
}

extension UInt64: ConstructableFromSQLiteValue {
    /// The value's integer, by bit pattern (as UInt64 values are stored).
    public init(sqliteValue: SQLiteValue) { self = UInt64(bitPattern: Int64(sqliteValue.integer)) }
}

extension Double: ConstructableFromSQLiteValue {
    /// The value's floating-point number (an INTEGER converts exactly up to 2^53).
    public init(sqliteValue: SQLiteValue) { self = sqliteValue.double }
}

extension Float: ConstructableFromSQLiteValue {
    /// The value's floating-point number, narrowed.
    public init(sqliteValue: SQLiteValue) { self = Float(sqliteValue.double) }
}

extension String: ConstructableFromSQLiteValue {
    /// The value's text.
    public init(sqliteValue: SQLiteValue) { self = sqliteValue.text }
}

extension Bool: ConstructableFromSQLiteValue {
    /// Whether the value's integer is nonzero.
    public init(sqliteValue: SQLiteValue) { self = sqliteValue.integer != 0 }
}

extension Optional: ConstructableFromSQLiteValue where Wrapped: ConstructableFromSQLiteValue {
    /// nil for NULL, else the wrapped type's reading.
    public init(sqliteValue: SQLiteValue) {
        self = sqliteValue.isNull ? nil : Wrapped(sqliteValue: sqliteValue)
    }
}

extension Int: Bindable {
    /// Binds as INTEGER.
    public func bind(to binder: Binder) -> Int32 { binder.bindInt(value: self) }
    /// `INTEGER`.
    public static func sqliteTypeName() -> String { "INTEGER" }
}

extension UInt: Bindable {
    /// Binds as INTEGER, by bit pattern (never truncated).
    public func bind(to binder: Binder) -> Int32 { binder.bindInt(value: Int(bitPattern: self)) }
    /// `INTEGER`.
    public static func sqliteTypeName() -> String { "INTEGER" }
}

extension Int64: Bindable {
    /// Binds as INTEGER.
    public func bind(to binder: Binder) -> Int32 { binder.bindInt(value: Int(self)) }
    /// `INTEGER`.
    public static func sqliteTypeName() -> String { "INTEGER" }
}

extension UInt64: Bindable {
    /// Binds as INTEGER, by bit pattern (never truncated).
    public func bind(to binder: Binder) -> Int32 { binder.bindInt(value: Int(Int64(bitPattern: self))) }
    /// `INTEGER`.
    public static func sqliteTypeName() -> String { "INTEGER" }
}

extension Bool: Bindable {
    /// Binds 1 or 0.
    public func bind(to binder: Binder) -> Int32 { binder.bindInt(value: self ? 1 : 0) }
    /// `INTEGER`.
    public static func sqliteTypeName() -> String { "INTEGER" }
}

extension Double: Bindable {
    /// Binds as REAL.
    public func bind(to binder: Binder) -> Int32 { binder.bindDouble(value: self) }
    /// `REAL`.
    public static func sqliteTypeName() -> String { "REAL" }
}

extension Float: Bindable {
    /// Binds as REAL.
    public func bind(to binder: Binder) -> Int32 { binder.bindDouble(value: Double(self)) }
    /// `REAL`.
    public static func sqliteTypeName() -> String { "REAL" }
}

extension String: Bindable {
    /// Binds as TEXT.
    public func bind(to binder: Binder) -> Int32 { binder.bindText(value: self) }
    /// `TEXT`.
    public static func sqliteTypeName() -> String { "TEXT" }
}

extension Optional: Bindable where Wrapped: Bindable {
    /// Binds NULL for nil, else the wrapped value.
    public func bind(to binder: Binder) -> Int32 {
        guard let value = self else { return binder.bindNull() }
        return value.bind(to: binder)
    }
    /// The wrapped type's column type.
    public static func sqliteTypeName() -> String { Wrapped.sqliteTypeName() }
}

// MARK: - Strata's implementations

/// One position of a statement: as an ``SQLiteValue``, the result column of the current row
/// (read on demand with SQLite's conversions); as a ``Binder``, the parameter.
final class StatementPosition: SQLiteValue, Binder {
    private let statement: SQLiteStatementHandle
    private let index: Int32

    init(_ statement: SQLiteStatementHandle, _ index: Int32) {
        self.statement = statement
        self.index = index
    }

    var isValid: Bool { index >= 0 && index < sqlite3_column_count(statement) }
    var integer: Int { Int(truncatingIfNeeded: sqlite3_column_int64(statement, index)) }
    var double: Double { sqlite3_column_double(statement, index) }
    var text: String {
        guard let value = sqlite3_column_value(statement, index) else { return "" }
        return readText(value)
    }
    var isNull: Bool { sqlite3_column_type(statement, index) == SQLITE_NULL }

    func bindInt(value: Int) -> Int32 { sqlite3_bind_int64(statement, index, Int64(value)) }
    func bindDouble(value: Double) -> Int32 { sqlite3_bind_double(statement, index, value) }
    func bindText(value: String) -> Int32 { (try? value.bind(to: statement, at: index)) ?? SQLITE_NOMEM }
    func bindNull() -> Int32 { sqlite3_bind_null(statement, index) }
}

/// Records what a value binds, to write it as a literal (a rebuild's fill value) or compare it.
final class RecordingBinder: Binder {
    private(set) var value: BindingValue = .null

    func bindInt(value: Int) -> Int32 { self.value = .integer(Int64(value)); return SQLITE_OK }
    func bindDouble(value: Double) -> Int32 { self.value = .real(value); return SQLITE_OK }
    func bindText(value: String) -> Int32 { self.value = .text(value); return SQLITE_OK }
    func bindNull() -> Int32 { value = .null; return SQLITE_OK }

    /// What `value` binds.
    static func bindingValue<V: Bindable>(of value: V) -> BindingValue {
        recorded(value).value
    }

    /// What `value` binds, and the result code its `bind(to:)` returned.
    static func recorded<V: Bindable>(_ value: V) -> (value: BindingValue, code: Int32) {
        let binder = RecordingBinder()
        let code = value.bind(to: binder)
        return (binder.value, code)
    }
}

/// Whether a type is an `Optional`, for the NOT NULL rules of custom column types.
protocol OptionalColumnValue {}
extension Optional: OptionalColumnValue {}

// MARK: - Custom values in conditions and assignments

/// A custom ``Bindable`` value in a query: bound as a parameter.
// The kernel's EncodingCheckedBinding: a value whose bind(to:) failed is never written or
// compared as the NULL it recorded (where `==` would match every NULL row); a statement that
// holds it throws, in a query and as a key (`get(id:)`) alike.
struct CustomValue: Expression, Strata.Bindable, EncodingCheckedBinding {
    typealias Value = BindingValue
    let bindingValue: BindingValue
    /// Why the value could not be bound, or nil.
    let encodingError: (any Swift.Error)?

    init<V: Bindable>(_ value: V) {
        let recorded = RecordingBinder.recorded(value)
        bindingValue = recorded.value
        encodingError =
            recorded.code == SQLITE_OK
            ? nil
            : ORMError.invalidQuery("a \(V.self) value could not be bound (its bind(to:) returned \(recorded.code))")
    }

    var fragment: SQLFragment { .value(self) }

    func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 {
        if let encodingError { throw encodingError }
        return bindingValue.bind(to: statement, at: index)
    }
}

/// `column = value` for a custom ``Bindable`` value: `where_(\Item.price == Money(cents: 5))`.
@_disfavoredOverload
public func == <L: OperableExpression, R: Bindable>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .equal, rhs: CustomValue(rhs))
}

/// `column <> value` for a custom ``Bindable`` value.
@_disfavoredOverload
public func != <L: OperableExpression, R: Bindable>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .notEqual, rhs: CustomValue(rhs))
}

/// `column < value` for a custom ``Bindable`` value.
@_disfavoredOverload
public func < <L: OperableExpression, R: Bindable>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .less, rhs: CustomValue(rhs))
}

/// `column <= value` for a custom ``Bindable`` value.
@_disfavoredOverload
public func <= <L: OperableExpression, R: Bindable>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .lessOrEqual, rhs: CustomValue(rhs))
}

/// `column > value` for a custom ``Bindable`` value.
@_disfavoredOverload
public func > <L: OperableExpression, R: Bindable>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .greater, rhs: CustomValue(rhs))
}

/// `column >= value` for a custom ``Bindable`` value.
@_disfavoredOverload
public func >= <L: OperableExpression, R: Bindable>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .greaterOrEqual, rhs: CustomValue(rhs))
}

/// `column = value` (bound) for a custom ``Bindable`` value: `set(assign(\Item.price, Money(cents: 7)))`.
@_disfavoredOverload
public func assign<T, V: Bindable>(_ keyPath: WritableKeyPath<T, V>, _ value: V) -> Assignment {
    Assignment(keyPath: keyPath, value: CustomValue(value))
}
