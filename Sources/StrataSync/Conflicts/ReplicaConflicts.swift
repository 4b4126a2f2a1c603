// How the replica settles the conflicts a pull meets: the hub's rows win, an undo meets what the
// writes made, and a pending write made again wins where it can.
import Foundation
import Strata

enum ReplicaConflicts {
    /// Remote changes win over what they meet; a change to a row that is gone is dropped.
    static func replaceConflicts(_ conflict: Conflict) -> ConflictResolution {
        switch conflict.kind {
        case .data, .conflict: return .replace
        case .notFound: return .omit
        case .constraint, .foreignKey: return .abort
        }
    }

    /// Undoing recorded changes meets what they made; anything else is a state the undo cannot
    /// take back, and the row stays as it is.
    static func undoConflicts(_ conflict: Conflict) -> ConflictResolution {
        switch conflict.kind {
        case .data, .conflict: return .replace
        case .notFound, .constraint: return .omit
        case .foreignKey: return .abort
        }
    }

    /// A pending write made again over the hub's newer rows: it wins where it can, and one the
    /// hub's rows now refuse (a UNIQUE value another replica took) is left out locally, still
    /// pending, as the hub will refuse it too.
    static func remakeConflicts(_ conflict: Conflict) -> ConflictResolution {
        switch conflict.kind {
        case .data, .conflict: return .replace
        case .notFound, .constraint: return .omit
        case .foreignKey: return .abort
        }
    }
}
