// Conflict policies: how the hub settles a replica's change that meets another.
import Foundation
import Strata

/// A conflict the hub met applying a replica's change, for a ``SyncPolicy/custom(_:)`` policy.
public struct SyncConflict: Sendable {
    /// The replica whose change conflicts.
    public let replicaID: String
    /// The table of the row.
    public let table: String
    /// What SQLite found (`.data`: the row changed since the replica saw it; `.notFound`: it was
    /// deleted; `.conflict`: an insert met an existing key; `.constraint`, `.foreignKey`).
    public let kind: ConflictKind
    /// The replica's change (its old and new values, key columns marked).
    public let change: Change
    /// The hub's current row, where there is one.
    public let currentValues: [BindingValue?]?
}

/// How the hub settles a replica's change that conflicts with what it already has, per table.
///
/// Under both built-in policies a delete that arrives after an update of its row deletes it
/// (`.lastWriterWins`) or is dropped (`.hubWins`), and an update that arrives after its row was
/// deleted is dropped: the row stays deleted. Changes to different columns of one row never
/// conflict, since a changeset carries only the columns it changed.
public enum SyncPolicy: Sendable {
    /// The change that reaches the hub last wins.
    case lastWriterWins
    /// The hub's row stays; the replica's conflicting change is dropped and its row corrected.
    case hubWins
    /// A closure on the hub decides (`.replace` applies the replica's change, `.omit` drops it,
    /// `.abort` refuses the whole push).
    case custom(@Sendable (SyncConflict) -> ConflictResolution)
}
