import StrataKernel
import Foundation

/// A virtual table as a schema version declares it (an FTS5 index, say): its name, its columns,
/// and the statements that create and drop it, which the module's own declaration renders
/// (`SchemaVersionBuilder/createFTS5Table(_:columns:options:)`).
///
/// ```swift
/// let docs = AppSchema.versions.last?.virtualTables.first
/// print(docs?.module, docs?.columnNames) // Optional("fts5") Optional(["title", "body"])
/// ```
/// Migrating down past its creation drops it; migrating down past its drop creates it again
/// from the same statements, with its columns and options.
public struct SchemaVirtualTable: Hashable, Sendable {
    /// The table's name, unquoted.
    public var name: String
    /// The module (`fts5`, ...).
    public var module: String
    /// The column names, in order.
    public var columnNames: [String]
    /// `CREATE VIRTUAL TABLE`, then what the module needs beside it (triggers, filling the index).
    let createStatements: [String]
    /// What undoes ``createStatements``: the table last.
    let dropStatements: [String]

    /// A virtual table created by `createStatements` and dropped by `dropStatements`.
    package init(name: String, module: String, columnNames: [String], createStatements: [String], dropStatements: [String]) {
        self.name = name
        self.module = module
        self.columnNames = columnNames
        self.createStatements = createStatements
        self.dropStatements = dropStatements
    }
}
