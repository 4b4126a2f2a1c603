// How far a long sync has come, kept in the replica's bookkeeping so that every observer of its
// status sees it, whichever process or task runs the sync.
import Foundation
import Strata

/// How many rows of its view a replica holds while a first sync (or one that starts over from a
/// snapshot) runs, phase by phase when subscriptions have priorities. Once the sync finishes the
/// replica reports none; one that stopped halfway keeps its last progress until the next.
public struct SyncProgress: Sendable, Equatable {
    /// Rows the synced tables hold.
    public var rows: Int
    /// Rows of the replica's view (its subscriptions applied) on the hub when the sync began;
    /// nil until the hub answered with the count.
    public var totalRows: Int?
    /// The priority whose rows are arriving now (nil: the rest of the view).
    public var phase: Int?

    /// A progress made of its parts.
    public init(rows: Int, totalRows: Int?, phase: Int? = nil) {
        self.rows = rows
        self.totalRows = totalRows
        self.phase = phase
    }

    /// The share of the view held, from 0 to 1 (0 before the count arrived; rows may come and
    /// go meanwhile, so it is capped at 1).
    public var fractionCompleted: Double {
        guard let totalRows, totalRows > 0 else { return 0 }
        return min(1, Double(rows) / Double(totalRows))
    }

    static func read(_ outbox: SyncOutbox) throws -> SyncProgress? {
        guard let rows: Int64 = try outbox.state("progress_rows") else { return nil }
        let total: Int64? = try outbox.state("progress_total")
        let phase: Int64? = try outbox.state("progress_phase")
        return SyncProgress(rows: Int(rows), totalRows: total.map(Int.init), phase: phase.map(Int.init))
    }

    /// A sync that reports progress starts: nothing counted yet.
    static func begin(phase: Int?, _ connection: Connection) throws {
        try SyncStatus.setState("progress_rows", .integer(0), connection)
        try SyncStatus.setState("progress_total", .null, connection)
        try SyncStatus.setState("progress_phase", phase.map { .integer(Int64($0)) } ?? .null, connection)
    }

    /// The sync finished: no progress to report.
    static func finish(_ connection: Connection) throws {
        for key in ["progress_rows", "progress_total", "progress_phase"] { try SyncStatus.setState(key, .null, connection) }
    }

    static func note(totalRows: Int, _ connection: Connection) throws {
        try SyncStatus.setState("progress_total", .integer(Int64(totalRows)), connection)
    }

    static func note(rows: Int, phase: Int?, _ connection: Connection) throws {
        try SyncStatus.setState("progress_rows", .integer(Int64(rows)), connection)
        try SyncStatus.setState("progress_phase", phase.map { .integer(Int64($0)) } ?? .null, connection)
    }
}
