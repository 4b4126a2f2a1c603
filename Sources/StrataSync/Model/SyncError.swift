// What can go wrong, by name: the errors sync throws, the hub's refusal of one entry.
import Foundation
import Strata

/// Why a sync step was refused. Each case says what to do in its description.
public enum SyncError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The table has no primary key that is the same on every replica: none at all, or an
    /// `INTEGER PRIMARY KEY` that SQLite assigns per database (two replicas would both make row 1).
    case tableNeedsGlobalKey(table: String)
    /// Replica and hub disagree on the synced tables' definitions (each side's fingerprint).
    case schemaMismatch(local: String, remote: String)
    /// The hub has no space of that name.
    case unknownSpace(String)
    /// The hub refused the push or pull (a damaged request, a bad name, a limit).
    case refused(String)
    /// The hub refused one pending write (a foreign key, a constraint, its policy, or the write is
    /// larger than a push may carry): the write stays pending and the others sync around it; the
    /// app finds it in ``SyncReplica/pendingChanges`` and drops it with ``SyncReplica/discard(_:)``
    /// or writes a corrected one.
    case entryRefused(SyncRefusal)
    /// The hub refused several pending writes in one sync, each named once (``SyncRefusal``):
    /// they stay pending and held, not sent again, until the app retries
    /// (``SyncReplica/retry(_:)``) or discards them, or the space's rules change. One refusal
    /// alone is ``entryRefused(_:)``; ``refusals`` reads either.
    case entriesRefused([SyncRefusal])
    /// The hub already applied this replica's entry `sequence` with other content: another
    /// database pushes under the same replica ID (an old copy of the file, a second process with
    /// its own file under one name). Nothing was applied from the entry.
    case duplicateEntry(replicaID: String, sequence: Int64)
    /// A write put NULL in a key column of a synced table: SQLite allows it where the column is
    /// not declared NOT NULL, but such a row never syncs. Nothing was written.
    case nullKey(table: String, column: String)
    /// The hub did not answer (no connection, a timeout, a name that does not resolve) after
    /// every retry. Nothing is lost: the writes stay in the outbox for the next sync.
    case hubUnreachable(url: String, reason: String)
    /// ``SyncHub/migrateSpace(_:to:_:)`` refused a step: it would drop or rename what replicas
    /// on an earlier version still sync, or the version does not follow the space's. Nothing
    /// changed.
    case schemaChangeRefused(space: String, version: Int, reason: String)
    /// The hub would not let this token do what was asked: the reason tells an app whether to
    /// fetch a new token (``SyncAccessDenial/Reason/expired``, ``SyncAccessDenial/Reason/invalid``)
    /// or that the user may not do it (``SyncAccessDenial/Reason/forbiddenSpace``,
    /// ``SyncAccessDenial/Reason/readOnly``, ``SyncAccessDenial/Reason/wrongReplica``).
    case accessDenied(SyncAccessDenial)
    /// The push was larger than the hub takes (its body or changeset limit); the replica sends
    /// fewer writes at a time, and a single write over the limit is refused alone as
    /// ``SyncRefusal/Reason/tooLarge``.
    case tooLarge(String)
    /// The database holds writes for the space `from` not yet pushed, and was opened as a
    /// replica of `to`: pushing them there would copy one space's rows into another. Open it for
    /// `from` and sync (or discard) them first; a database with nothing pending switches spaces
    /// by starting over from the new space's snapshot.
    case spaceChanged(from: String, to: String, pendingChanges: Int)
    /// Rules were refused when set (``SyncHub/setRules(_:forSpace:)``) or read: an unknown table
    /// or column, a predicate that does not compile, a statement that is not a `SELECT`, or SQL
    /// outside the rule language. The space's rules are as they were.
    case invalidRules(String)

    public var description: String {
        switch self {
        case .tableNeedsGlobalKey(let table):
            return
                "table \(table) cannot be synced: it needs a primary key that is unique across replicas (UUID text or blob, or a key the app assigns), not none or an INTEGER PRIMARY KEY that SQLite assigns"
        case .schemaMismatch(let local, let remote):
            return "the synced tables differ between this replica (\(local)) and the hub (\(remote)); migrate both to the same schema, then sync again"
        case .unknownSpace(let space):
            return "the hub has no space named \(space); create it with SyncHub.createSpace"
        case .refused(let reason):
            return "the hub refused: \(reason)"
        case .entryRefused(let refusal):
            return
                "\(refusal); the write stays pending while the others sync: find it in refusedChanges, then discard(_:) it, retry(_:) it or write a corrected one"
        case .entriesRefused(let refusals):
            return "\(refusals.count) writes were refused (" + refusals.map(\.description).joined(separator: "; ")
                + "); they stay pending while the others sync: find them in refusedChanges, then discard(_:) or retry(_:) each"
        case .duplicateEntry(let replica, let sequence):
            return
                "the hub has entry \(sequence) of replica \(replica) with other content: two databases push under one replica ID; give each database its own ID"
        case .schemaChangeRefused(let space, let version, let reason):
            return
                "migrating \(space) to version \(version) was refused: \(reason); nothing changed (add tables, columns with a default, or indexes; never drop or rename what replicas on earlier versions sync)"
        case .hubUnreachable(let url, let reason):
            return "cannot reach the hub at \(url): \(reason); the writes are kept in the outbox and go with the next sync"
        case .accessDenied(let denial):
            return denial.description
        case .tooLarge(let reason):
            return "the push is too large for the hub: \(reason)"
        case .spaceChanged(let from, let to, let pending):
            return
                "this database holds \(pending) write\(pending == 1 ? "" : "s") for the space \(from) not yet pushed and was opened for \(to); open it as a replica of \(from) and sync or discard them first, so no row of \(from) reaches \(to)"
        case .invalidRules(let reason):
            return "the sync rules were refused: \(reason); the space's rules are as they were"
        case .nullKey(let table, let column):
            return
                "the write puts NULL in \(table).\(column), a key column of a synced table: a row with a NULL key never syncs, so nothing was written (declare the column NOT NULL, or give every row a key)"
        }
    }
}

extension SyncError: LocalizedError {
    /// The description, for `localizedDescription` (a SwiftUI alert, a log line).
    /// The refused writes this error reports: one for ``entryRefused(_:)``, each for
    /// ``entriesRefused(_:)``, none for any other case.
    public var refusals: [SyncRefusal] {
        switch self {
        case .entryRefused(let refusal): [refusal]
        case .entriesRefused(let refusals): refusals
        default: []
        }
    }

    public var errorDescription: String? { description }
}

/// Why the hub refused a token, with the HTTP status it answered (0 for an in-process hub).
public struct SyncAccessDenial: Codable, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong with the token, by what an app does about it.
    public enum Reason: String, Codable, Sendable, Equatable {
        /// No token was sent where one is needed: sign in.
        case missing
        /// The token expired: ask the app's backend for a new one and sync again.
        case expired
        /// The token is not one the hub accepts (its signature, algorithm, form or claims).
        case invalid
        /// The token gives no access to this space.
        case forbiddenSpace
        /// The token may read the space, not write it.
        case readOnly
        /// The token was issued for another replica ID.
        case wrongReplica
    }
    /// Why.
    public var reason: Reason
    /// The HTTP status the hub answered with (401 or 403; 0 when no HTTP was involved).
    public var status: Int
    /// What the hub said.
    public var message: String

    /// A denial for `reason`, answered with `status`.
    public init(reason: Reason, status: Int, message: String) {
        self.reason = reason; self.status = status; self.message = message
    }

    /// The denial in words, with what to do.
    public var description: String {
        let advice: String
        switch reason {
        case .missing, .expired, .invalid: advice = "sign in again or fetch a new token, then sync"
        case .forbiddenSpace: advice = "this user has no access to the space"
        case .readOnly: advice = "this user may read the space, not write it; local writes are refused (discard them)"
        case .wrongReplica: advice = "the token was issued for another replica ID"
        }
        return "the hub denied access (\(reason.rawValue), HTTP \(status)): \(message); \(advice)"
    }
}

extension SyncAccessDenial: LocalizedError {
    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}

/// A pending write the hub would not apply, and why.
public struct SyncRefusal: Codable, Sendable, Equatable, CustomStringConvertible {
    /// Why a write was refused.
    public enum Reason: String, Codable, Sendable, Equatable {
        /// It would leave a row referring to one that is not there (another replica deleted it).
        case foreignKey
        /// It breaks a constraint (a UNIQUE value another replica took, a CHECK, NOT NULL).
        case constraint
        /// The table's ``SyncPolicy/custom(_:)`` policy aborted it.
        case policy
        /// Its changeset is damaged.
        case damaged
        /// It is larger than a push may carry (``SyncReplicaSettings/maximumPushBytes``).
        case tooLarge
        /// It changes a row that an earlier refused write made or changed, so it waits for that
        /// write (applied alone it would do nothing, and be lost).
        case dependsOnRefused
        /// The replica's token may read the space, not write it: the write never reaches the
        /// hub; discard it (pulls go on around it).
        case readOnly
        /// The space's rules do not let this user write this row (its old or its new values fail
        /// the table's write rule, or the table has none); discard it, and the row returns to
        /// what the user may see.
        case forbidden
        /// On a space with rules, the write was made while another user was signed in on this
        /// database (the user the hub named to the replica then), and another user pushed it:
        /// the hub never checks one user's writes against another's permissions, nor logs them
        /// as theirs. Sign that user in again and sync, or discard it; once nothing of the
        /// earlier user is pending, the replica's writes are the new user's.
        case userChanged
        /// It writes a row whose key is NULL: no NULL equals another, so the hub cannot tell
        /// which row it names, nor check it against the rules (declare the key `NOT NULL`).
        case nullKey
    }
    /// The write's place in the replica's order (``SyncPendingChange/sequence``).
    public var sequence: Int64
    /// Why it was refused.
    public var reason: Reason
    /// The table of the refused row, where one row was refused.
    public var table: String?
    /// That row's key, one value per key column.
    public var key: [SyncValue]?
    /// What the hub said.
    public var message: String

    /// A refusal of the write `sequence`.
    public init(sequence: Int64, reason: Reason, table: String?, key: [SyncValue]?, message: String) {
        self.sequence = sequence; self.reason = reason; self.table = table; self.key = key; self.message = message
    }

    /// The refusal in words: which write, which row, why.
    public var description: String {
        var text = "write \(sequence) was refused (\(reason.rawValue))"
        if let table { text += " at \(table)" }
        if let key { text += " key \(key.map(\.description).joined(separator: ", "))" }
        return text + ": " + message
    }
}

extension SyncRefusal: LocalizedError {
    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}

/// Why the hub did not apply one entry; becomes a ``SyncRefusal`` in the push's answer.
package struct EntryRefusal: Error {
    package let reason: SyncRefusal.Reason
    package let table: String?
    package let key: [SyncValue]?
    package let message: String

    package init(reason: SyncRefusal.Reason, table: String?, key: [SyncValue]?, message: String) {
        self.reason = reason
        self.table = table
        self.key = key
        self.message = message
    }
}
