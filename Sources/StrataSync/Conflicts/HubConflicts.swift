// How the hub settles a conflict an entry meets: the table's policy, or a refusal by name for a
// foreign key or a constraint.
import Foundation
import Strata

enum HubConflicts {
    static func resolve(_ conflict: Conflict, replica: String, policies: [String: SyncPolicy]) throws -> ConflictResolution {
        let key = conflict.change.primaryKey.map { SyncValue($0) }
        switch conflict.kind {
        case .foreignKey:
            throw EntryRefusal(
                reason: .foreignKey, table: nil, key: nil,
                message: "the change would break a foreign key (\(conflict.foreignKeyViolations) violation(s)); the replica keeps it")
        case .constraint:
            throw EntryRefusal(
                reason: .constraint, table: conflict.change.table, key: key,
                message: "the change to \(conflict.change.table) breaks a constraint (a UNIQUE value taken, a CHECK, NOT NULL)")
        default:
            break
        }
        switch policies[conflict.change.table.lowercased()] ?? .lastWriterWins {
        case .lastWriterWins:
            return conflict.kind == .notFound ? .omit : .replace
        case .hubWins:
            return .omit
        case .custom(let decide):
            let resolution = decide(
                SyncConflict(
                    replicaID: replica, table: conflict.change.table, kind: conflict.kind,
                    change: conflict.change, currentValues: conflict.currentValues))
            if resolution == .abort {
                throw EntryRefusal(
                    reason: .policy, table: conflict.change.table, key: key,
                    message: "the hub's policy for \(conflict.change.table) refused the change")
            }
            return conflict.kind == .notFound ? .omit : resolution
        }
    }
}
