// Values and rows as a transport carries them, and the rows a changeset touches.
import Foundation
import Strata

/// A value as a transport carries it (JSON for the network), storage class kept.
public enum SyncValue: Codable, Sendable, Hashable {
    /// SQL NULL.
    case null
    /// An INTEGER.
    case integer(Int64)
    /// A REAL (its bits travel exactly).
    case real(Double)
    /// TEXT.
    case text(String)
    /// A BLOB.
    case blob(Data)

    package init(_ value: BindingValue?) {
        switch value {
        case .none, .null?: self = .null
        case .integer(let v)?: self = .integer(v)
        case .real(let v)?: self = .real(v)
        case .text(let v)?: self = .text(v)
        case .blob(let v)?: self = .blob(v)
        }
    }

    init(any value: Any?) {
        switch value {
        case let v as Int64: self = .integer(v)
        case let v as Int: self = .integer(Int64(v))
        case let v as Double: self = .real(v)
        case let v as String: self = .text(v)
        case let v as Data: self = .blob(v)
        default: self = .null
        }
    }

    package var binding: BindingValue {
        switch self {
        case .null: return .null
        case .integer(let v): return .integer(v)
        case .real(let v): return .real(v.isNaN ? 0 : v)
        case .text(let v): return .text(v)
        case .blob(let v): return .blob(v)
        }
    }

    // JSON has no infinities or -0.0 and loses Int64 precision: reals travel as their bits.
    private enum Key: String, CodingKey { case n, i, r, t, b }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        if let v = try c.decodeIfPresent(String.self, forKey: .i), let i = Int64(v) {
            self = .integer(i)
        } else if let v = try c.decodeIfPresent(String.self, forKey: .r), let bits = UInt64(v) {
            self = .real(Double(bitPattern: bits))
        } else if let v = try c.decodeIfPresent(String.self, forKey: .t) {
            self = .text(v)
        } else if let v = try c.decodeIfPresent(Data.self, forKey: .b) {
            self = .blob(v)
        } else {
            self = .null
        }
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .null: try c.encode(true, forKey: .n)
        case .integer(let v): try c.encode(String(v), forKey: .i)
        case .real(let v): try c.encode(String(v.bitPattern), forKey: .r)
        case .text(let v): try c.encode(v, forKey: .t)
        case .blob(let v): try c.encode(v, forKey: .b)
        }
    }
}

extension SyncValue: CustomStringConvertible {
    /// The value as SQL would spell it (text quoted, a blob in hex, a real as SQLite reads it
    /// back): the kernel's literal, as a subscription's text shows values.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return sqlLiteral(.integer(v))
        case .real(let v): return sqlLiteral(.real(v))
        case .text(let v): return sqlLiteral(.text(v))
        case .blob(let v): return sqlLiteral(.blob(v))
        }
    }
}

/// One row as the hub has it after a push, sent back to the replica whose change conflicted:
/// `values` nil when the hub has no such row.
public struct SyncRow: Codable, Sendable, Equatable {
    /// The row's table.
    public var table: String
    /// The table's primary-key columns, in key order.
    public var keyColumns: [String]
    /// The row's key, one value per key column.
    public var key: [SyncValue]
    /// The stored columns, in table order.
    public var columns: [String]
    /// The row's values in `columns` order; nil when the hub has no such row.
    public var values: [SyncValue]?
}

/// The rows a changeset changes, as table and key: a write that touches one a refused write
/// touched waits for it.
func rowsTouched(by changeset: Data) -> Set<String> {
    var rows = Set<String>()
    // A changeset that does not parse is refused on its own; it holds nothing back.
    try? Changeset(data: changeset).forEachChange { change in
        let key = (try? JSONEncoder().encode(change.primaryKey.map { SyncValue($0) })) ?? Data()
        rows.insert(change.table.lowercased() + "\u{0}" + key.base64EncodedString())
    }
    return rows
}
