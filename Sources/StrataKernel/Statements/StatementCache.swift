// The one statement cache: every convenience call, helper, the ORM and generated records reuse
// prepared statements through it. It is bounded (least recently used evicted first), prepares
// with SQLITE_PREPARE_PERSISTENT, and shares each statement with at most one caller at a time.
import Foundation

/// What the statement cache files a statement under.
///
/// A key made from SQL text (``init(sql:)``) hashes the text on every lookup; that suits calls
/// that receive SQL from their caller. A layer that runs the same statement row after row (the
/// ORM, records, the insert helper) builds a key once with ``init(reusing:)`` and keeps it: it is
/// looked up by identity, so the SQL is hashed and compared never again.
package struct StatementCacheKey: Hashable, @unchecked Sendable {
    // @unchecked: both cases hold immutable values (a string, or an immutable object used for
    // its identity).
    /// A key of its own, compared by identity, that carries its SQL.
    private final class Token {
        let sql: SQL
        init(sql: SQL) { self.sql = sql }
    }

    /// One reference either way, so copying a key costs a single retain.
    private enum Storage {
        case text(SQL)
        case token(Token)
    }

    private let storage: Storage

    /// A key that is the SQL text itself.
    package init(sql: SQL) { storage = .text(sql) }

    /// A key of its own for `sql`, equal only to itself (and its copies). Keep it and pass it on
    /// every call, so the cache finds the statement without hashing the SQL.
    package init(reusing sql: SQL) { storage = .token(Token(sql: sql)) }

    /// The SQL to prepare when the cache has no statement for the key.
    package var sql: SQL {
        switch storage {
        case .text(let sql): return sql
        case .token(let token): return token.sql
        }
    }

    /// The identity of a key built once; nil for a key that is SQL text.
    package var identity: ObjectIdentifier? {
        if case .token(let token) = storage { return ObjectIdentifier(token) }
        return nil
    }

    // SQL text is compared and hashed by its UTF-8 bytes, never as Swift `String`s: those are
    // equal when canonically equivalent, so `SELECT 'é'` (U+00E9) and `SELECT 'é'` (e + U+0301)
    // shared one cached statement and one returned the other's bytes (found by the ten-fold
    // string-literal property run).
    package static func == (lhs: StatementCacheKey, rhs: StatementCacheKey) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.token(let left), .token(let right)): return left === right
        case (.text(let left), .text(let right)): return StrataKernel.sameBytes(left, right)
        default: return false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch storage {
        case .text(let sql):
            let hashed: Void? = sql.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            if hashed == nil { for byte in sql.utf8 { hasher.combine(byte) } }
        case .token(let token): hasher.combine(ObjectIdentifier(token))
        }
    }
}

/// A bounded cache of prepared statements, least recently used evicted first.
///
/// A connection is used by one thread at a time, so the cache's state needs no lock and no
/// exclusivity checks.
package final class StatementCache {
    let capacity: Int
    @exclusivity(unchecked) private var entries: [StatementCacheKey: PreparedStatement] = [:]
    @exclusivity(unchecked) private var clock: UInt64 = 0
    /// The entry found last: the statement run row after row is found again by comparing an
    /// identity (a key built once) or the SQL, without hashing. It is always an entry of
    /// `entries`, whose key keeps the token alive, so the identity cannot be reused meanwhile.
    @exclusivity(unchecked) private var lastIdentity: ObjectIdentifier?
    @exclusivity(unchecked) private var lastSQL: SQL?
    @exclusivity(unchecked) private var lastStatement: PreparedStatement?

    init(capacity: Int) { self.capacity = capacity }

    var count: Int { entries.count }

    /// A statement for `key` that no one is using, or nil.
    @inline(__always)
    func available(for key: StatementCacheKey) -> PreparedStatement? {
        let statement: PreparedStatement
        let identity = key.identity
        if let lastStatement, identity != nil ? identity == lastIdentity : (lastIdentity == nil && lastSQL == key.sql) {
            statement = lastStatement
        } else {
            guard let found = entries[key] else { return nil }
            statement = found
            lastIdentity = identity
            lastSQL = identity == nil ? key.sql : nil
            lastStatement = found
        }
        guard !statement.isInUse else { return nil }
        clock &+= 1
        statement.lastUse = clock
        return statement
    }

    /// The statement found last, when it was found under the key built once whose identity is
    /// `identity` and no one is using it; nil otherwise (ask ``available(for:)`` then). For a
    /// caller that runs one statement row after row and keeps its key (so the identity is that
    /// live key's): no key is copied, switched on or hashed.
    @inline(__always)
    package func availableAgain(identity: ObjectIdentifier) -> PreparedStatement? {
        guard identity == lastIdentity, let lastStatement, !lastStatement.isInUse else { return nil }
        clock &+= 1
        lastStatement.lastUse = clock
        return lastStatement
    }

    func insert(_ statement: PreparedStatement, for key: StatementCacheKey) {
        guard capacity > 0, entries[key] == nil else { return }
        if entries.count >= capacity,
            let victim = entries.filter({ !$0.value.isInUse }).min(by: { $0.value.lastUse < $1.value.lastUse })
        {
            entries[victim.key] = nil
            if lastStatement === victim.value { forgetLastFound() }
        }
        clock &+= 1
        statement.lastUse = clock
        entries[key] = statement
    }

    /// The cached statement compiled as `handle`, if any. Linear: for the rare cleanup of a
    /// connection a caller left statements running on.
    func entry(compiledAs handle: SQLiteStatementHandle) -> PreparedStatement? {
        entries.values.first { $0.handle == handle }
    }

    /// Finalizes statements no one uses (they are re-prepared on demand).
    package func removeAll() {
        entries = entries.filter { $0.value.isInUse }
        forgetLastFound()
    }

    private func forgetLastFound() {
        lastIdentity = nil
        lastSQL = nil
        lastStatement = nil
    }
}
