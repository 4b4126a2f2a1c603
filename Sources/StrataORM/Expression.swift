import Foundation

/// Something the ORM writes into a query: a column (a key path), a value, an operator, a function.
///
/// An ORM expression is one of the core's typed expressions (`SQLExpressible`): its fragment holds
/// its key paths as late columns, which the storage resolves to its tables' columns when it
/// renders a statement. Values never reach the SQL text: they become `?` parameters, bound when
/// the query runs.
public protocol Expression: SQLExpressible {}

extension Expression {
    /// Appends the expression's SQL and parameters, its key paths resolved.
    ///
    /// - Throws: `ORMError.columnIsNotMapped` for a key path that is no column of the storage.
    public func appendSQL(to serializer: inout SQLSerializer) throws {
        try serializer.append(self)
    }
}

/// An expression that is a column, an operator or a function (not a bare value): what
/// `where_`, `orderBy` and the ORM's operators take, so `1 + 2` keeps meaning `3`.
public protocol OperableExpression: Expression {}

/// An expression with a result type, which `select` reads.
public protocol ResultExpression: OperableExpression {}

/// A plain value in an expression: bound as a parameter.
public protocol ValueExpression: Expression, Strata.Bindable where Value == Self {}

extension ValueExpression {
    /// `?`, the value bound (NULL for a nil optional).
    public var fragment: SQLFragment { .value(self) }
}

extension Int: ValueExpression {}
extension Int8: ValueExpression {}
extension Int16: ValueExpression {}
extension Int32: ValueExpression {}
extension Int64: ValueExpression {}
extension UInt: ValueExpression {}
extension UInt8: ValueExpression {}
extension UInt16: ValueExpression {}
extension UInt32: ValueExpression {}
extension UInt64: ValueExpression {}
extension Bool: ValueExpression {}
extension Float: ValueExpression {}
extension Double: ValueExpression {}
extension String: ValueExpression {}
extension Data: ValueExpression {}
extension Date: ValueExpression {}
extension URL: ValueExpression {}

/// An optional value (`\User.imageUrl == name`, where `name: String?`): bound, or NULL when nil.
extension Optional: SQLExpressible, Expression, ValueExpression where Wrapped: ValueExpression {}

extension KeyPath: Expression, OperableExpression, ResultExpression {
    /// The property's column, named when the storage renders the statement.
    public var fragment: SQLFragment { .lateColumn(LateColumn(key: self)) }
}
