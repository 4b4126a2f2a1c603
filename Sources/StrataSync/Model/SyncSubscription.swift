// What part of its view a replica asks for.
import Foundation
import Strata

/// Part of a replica's view that it asks for: the instances of one bucket whose parameter
/// values match.
///
/// A replica with no subscriptions holds its whole view. Once it subscribes to a bucket, it holds
/// only that bucket's instances its subscriptions name (buckets it names in no subscription stay
/// whole), so the hub serves the intersection of the rules' view and the subscriptions. A
/// subscription never widens a view: one naming an instance the rules do not give, a bucket the
/// rules lack or a column the bucket's parameters do not select matches nothing. Adding or
/// dropping one moves its rows in or out at the next pull. On a space without rules every replica
/// holds the whole space, and subscriptions are not read.
///
/// ```swift
/// // Rules: bucket "list", parameters "SELECT list AS l FROM member WHERE user = auth.user".
/// try await replica.subscribe(SyncSubscription(bucket: "list", parameters: ["l": "L1"]))
/// try await replica.sync()   // L1's rows arrive; the user's other lists stay on the hub
/// ```
///
/// A subscription with a ``priority`` above 0 brings its rows first, and
/// ``SyncStatus/progress`` tells how many rows of the view have arrived.
public struct SyncSubscription: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The bucket's name, as the rules spell it (compared without regard to ASCII case).
    public var bucket: String
    /// Values of the bucket's parameter columns (`bucket.<name>` in its rules), each compared with
    /// the value the parameters query returns (an INTEGER 1 and a REAL 1.0 are equal; `'1'` and
    /// 1 are not). Columns left out match any value.
    public var parameters: [String: SyncValue]
    /// Above 0, this subscription's rows arrive first in a replica's first sync:
    /// ``SyncReplica/pull()`` brings the rows of the highest priority, then of the next, then
    /// everything else, each a complete pull, so an app can show one list while the others still
    /// load. Later syncs bring every change in one pull.
    public var priority: Int

    /// The most bytes a replica's subscriptions take in a request (base64url JSON in the pull's
    /// URL, where an HTTP server refuses a request line past about 100 KB): 32 KiB, about 500
    /// subscriptions of one short parameter. ``SyncReplica/setSubscriptions(_:)`` refuses more,
    /// on every transport alike.
    public static let maximumEncodedBytes = 32_768

    /// A subscription to the instances of `bucket` with these parameter values.
    public init(bucket: String, parameters: [String: SyncValue] = [:], priority: Int = 0) {
        self.bucket = bucket
        self.parameters = parameters
        self.priority = priority
    }

    private enum CodingKeys: String, CodingKey { case bucket, parameters, priority }

    /// Decodes a subscription; one written without a priority has 0.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bucket = try container.decode(String.self, forKey: .bucket)
        parameters = try container.decodeIfPresent([String: SyncValue].self, forKey: .parameters) ?? [:]
        priority = try container.decodeIfPresent(Int.self, forKey: .priority) ?? 0
    }

    public var description: String {
        bucket + "(" + parameters.sorted { $0.key < $1.key }.map { "\($0.key) = " + Self.shown($0.value) }.joined(separator: ", ") + ")"
            + (priority == 0 ? "" : " priority \(priority)")
    }

    /// A value as SQL would write it (`'o2'`, `1`, `X'00FF'`, `NULL`): the kernel's literal.
    static func shown(_ value: SyncValue) -> String { sqlLiteral(value.binding) }

    /// Whether an instance of this subscription's bucket, with `values` for the parameter
    /// `columns` (lower-cased), is one it asks for.
    func matches(columns: [String], values: [SyncValue]) -> Bool {
        for (name, wanted) in parameters {
            guard let index = columns.firstIndex(of: name.lowercased()), index < values.count,
                Self.same(values[index], wanted)
            else { return false }
        }
        return true
    }

    /// Equality as the rules compare a bucket's values: numbers by value whatever their storage
    /// class, everything else exactly (NULL equals nothing).
    package static func same(_ one: SyncValue, _ other: SyncValue) -> Bool {
        switch (one, other) {
        case (.integer(let a), .integer(let b)): return a == b
        case (.integer(let a), .real(let b)), (.real(let b), .integer(let a)):
            // Exact: a Double that is an integer within Int64's range, compared as one.
            guard b.rounded() == b, b >= -9.223372036854775808e18, b < 9.223372036854775808e18 else { return false }
            return Int64(b) == a
        case (.real(let a), .real(let b)): return a == b
        case (.text(let a), .text(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.blob(let a), .blob(let b)): return a == b
        default: return false
        }
    }
}

extension SyncValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    /// A text value.
    public init(stringLiteral value: String) { self = .text(value) }
    /// An integer value.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A real value.
    public init(floatLiteral value: Double) { self = .real(value) }
}
