/// What ``Storage/syncSchema(preserve:)`` did to one table (SQLiteORM's names, spelling included).
public enum SyncSchemaResult: Sendable, Equatable, CustomStringConvertible {
    /// The table did not exist and was created.
    case newTableCreated
    /// The table already matched its definition.
    case alredyInSync
    /// Columns that are no longer mapped were removed; the other columns' data was copied.
    case oldColumnsRemoved
    /// Missing columns were added; existing rows kept.
    case newColumnsAdded
    /// Both of the above.
    case newColumnsAddedAndOldColumnsRemoved
    /// The table was recreated: a column changed type, `NOT NULL` or primary key, or a `NOT NULL`
    /// column without default was added. With `preserve: true` the rows were copied across;
    /// with `preserve: false` they were dropped.
    case droppedAndRecreated

    /// SQLiteORM's message for the result, such as "new table created".
    public var description: String {
        switch self {
        case .newTableCreated: return "new table created"
        case .alredyInSync: return "table and storage is already in sync."
        case .oldColumnsRemoved: return "old excess columns removed"
        case .newColumnsAdded: return "new columns added"
        case .newColumnsAddedAndOldColumnsRemoved: return "old excess columns removed and new columns added"
        case .droppedAndRecreated: return "old table dropped and recreated"
        }
    }
}
