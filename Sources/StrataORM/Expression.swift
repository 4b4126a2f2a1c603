import Foundation

/// Something the ORM writes into a query: a column (a key path), a value, an operator, a function.
///
/// Values never reach the SQL text: they become `?` parameters, bound when the query runs.
public protocol Expression {
    /// Appends the expression's SQL and parameters.
    ///
    /// - Throws: `ORMError.columnIsNotMapped` for a key path that is no column of the storage.
    func appendSQL(to serializer: inout SQLSerializer) throws
}

/// An expression that is a column, an operator or a function (not a bare value): what
/// `where_`, `orderBy` and the ORM's operators take, so `1 + 2` keeps meaning `3`.
public protocol OperableExpression: Expression {}

/// An expression with a result type, which `select` reads.
public protocol ResultExpression: OperableExpression {
    /// The Swift type a row of the result reads as.
    associatedtype Value
}

/// A plain value in an expression: bound as a parameter.
public protocol ValueExpression: Expression, Strata.Bindable {}

extension ValueExpression {
    public func appendSQL(to serializer: inout SQLSerializer) throws {
        serializer.appendValue(self)
    }
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
extension Optional: Expression, ValueExpression where Wrapped: ValueExpression {}

/// Tells a nil optional value, so `==` and `!=` with one compare with IS / IS NOT.
protocol NilCheckable {
    var isNilValue: Bool { get }
}

extension Optional: NilCheckable {
    var isNilValue: Bool { self == nil }
}

extension KeyPath: Expression, OperableExpression, ResultExpression {
    public func appendSQL(to serializer: inout SQLSerializer) throws {
        try serializer.appendColumn(self)
    }
}
