import StrataKernel
import Foundation

/// One version of a ``Schema``: its steps, and the tables and indexes declared once they ran.
public struct SchemaVersion: Sendable {
    /// The version number, stored in `PRAGMA user_version` once the version is applied.
    public let number: Int
    /// The steps, each with the declared schema before and after it.
    let steps: [PlannedOperation]
    /// The declared schema once this version is applied.
    let state: SchemaState

    init(number: Int, steps: [PlannedOperation], state: SchemaState) {
        self.number = number
        self.steps = steps
        self.state = state
    }

    /// The tables declared at this version.
    public var tables: [SchemaTable] { state.tables }

    /// The names of the tables declared at this version.
    public var tableNames: [String] { state.tables.map(\.name) }

    /// The table with this name declared at this version, if any.
    public func tableNamed(_ name: String) -> SchemaTable? { state.table(name) }

    /// The virtual tables (FTS5 indexes, ...) declared at this version.
    public var virtualTables: [SchemaVirtualTable] { state.virtualTables }

    /// The indexes declared at this version.
    public var indexes: [SchemaIndex] { state.indexes }
}
