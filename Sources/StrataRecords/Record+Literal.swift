import Foundation

// Records fetched with SQL written by hand, its values bound through interpolation.
extension QueryableRecord {
    /// The records `literal` selects; each row is read by column name, so select the record's
    /// columns (`SELECT *` of its table does).
    ///
    /// ```swift
    /// let books: [Book] = try Book.fetchAll(db, literal: "SELECT * FROM book WHERE year > \(y)")
    /// ```
    /// - Throws: `SQLiteError`; ``RecordError`` for a row that does not map.
    @inlinable
    public static func fetchAll(_ db: Connection, literal: SQLFragment) throws -> [Self] {
        try db.query(literal: literal)
    }

    /// The first record `literal` selects, or nil when it selects none.
    ///
    /// ```swift
    /// let one: Book? = try Book.fetchOne(db, literal: "SELECT * FROM book WHERE id = \(id)")
    /// ```
    /// - Throws: `SQLiteError`; ``RecordError`` for a row that does not map.
    @inlinable
    public static func fetchOne(_ db: Connection, literal: SQLFragment) throws -> Self? {
        try db.query(literal: literal)
    }
}
