// Compatibility/SQift: SQift's spellings that are not the core's own (the `.sqift` namespace).
import StrataKernel
import StrataSchema
import Foundation

/// Namespace for SQift's extensions on standard types, reached through `.sqift`.
public struct SQift<Base> {
    /// The value the namespaced helpers act on.
    public let base: Base
    /// Wraps `base` to reach its SQift helpers.
    public init(_ base: Base) { self.base = base }
}

/// A type that exposes SQift's helpers through `.sqift`.
public protocol SQiftCompatible {
    /// The type the `.sqift` namespace wraps, normally `Self`.
    associatedtype CompatibleType
    /// The value wrapped in the `SQift` namespace, where its SQift helpers live.
    var sqift: SQift<CompatibleType> { get }
}

extension SQiftCompatible {
    /// Wraps the value itself in the `SQift` namespace.
    public var sqift: SQift<Self> { SQift(self) }
}

extension String: SQiftCompatible {}

extension SQift where Base == String {
    /// The string as a SQL string literal: wrapped in single quotes, inner quotes doubled.
    ///
    /// ```swift
    /// "it's".sqift.addingSQLEscapes() // "'it''s'"
    /// ```
    /// Prefer bound parameters; this is for the few places SQL cannot take one (savepoint names).
    public func addingSQLEscapes() -> String {
        quoteStringLiteral(base)
    }
}
