// Views as records: `@Record(view:)` makes a struct a `ViewRecord`, read and queried like a
// table's records, with no persistence calls; its rows come from `definition`, a typed query,
// created as a view by `createView`. The CREATE VIEW renders through `StatementClauses`, its
// values written as literals (SQLite takes no parameters in a view).
import Foundation

/// A struct whose rows are a view's, made by `@Record(view: "name")`: typed queries read it as
/// they read a table's records, and the persistence calls (`insert`, `update`, `delete`) do not
/// exist for it, so writing one is a compile error.
///
/// ```swift
/// @Record(view: "author_totals") struct AuthorTotal { var authorId: Int64; var books: Int }
/// extension AuthorTotal {
///     static let definition = Book.group(by: \.authorId).select { ($0.authorId, $0.id.count()) }
/// }
/// try AuthorTotal.createView(db)
/// let busy: [AuthorTotal] = try AuthorTotal.where { $0.books > 3 }.fetchAll(db)
/// ```
public protocol ViewRecord: QueryableRecord {
    /// The query whose rows the view holds.
    associatedtype Definition: SelectQuery
    /// The view's query: one column per property, in declaration order. It takes the same
    /// expressions as `where`; its values are written into the view as literals.
    static var definition: Definition { get }
}

extension ViewRecord {
    /// `CREATE VIEW "name"("a", …) AS SELECT …`, with the definition's values as literals.
    /// - Throws: The encoding error of a value that could not be encoded;
    ///   `SQLFragmentError.parametersInSchemaStatement` for SQL text with its own `?`s.
    public static func createViewSQL(temporary: Bool = false, ifNotExists: Bool = true) throws -> String {
        try StatementClauses.createView(
            tableName, columns: recordColumns.map(\.name), as: definition.selectStatement,
            temporary: temporary, ifNotExists: ifNotExists
        ).sqlInliningValues()
    }

    /// Creates the view from ``ViewRecord/definition`` unless one of that name exists
    /// (`CREATE VIEW IF NOT EXISTS`); `temporary` makes it the connection's own (`TEMP`).
    /// - Throws: `SQLiteError` when the definition reads a table that does not exist or returns
    ///   another number of columns than the record has properties; the errors of
    ///   ``createViewSQL(temporary:ifNotExists:)``.
    public static func createView(_ db: Connection, temporary: Bool = false) throws {
        try db.execute(createViewSQL(temporary: temporary))
    }

    /// Drops the view if it exists, as a schema change to its definition needs first.
    public static func dropView(_ db: Connection) throws {
        try db.run(literal: "DROP VIEW IF EXISTS \(identifier: tableName)")
    }
}
