import Strata

/// Quotes `identifier` as an SQL identifier: `"name"`, with inner `"` doubled.
///
/// ```swift
/// let sql = "SELECT * FROM " + escapeIdentifier("order items")  // SELECT * FROM "order items"
/// ```
/// The helpers quote the names they take; use this for names inside the SQL fragments they
/// accept (`whereExpr`, `orderBy`, `from`, ...), which are spliced as written.
public func escapeIdentifier(_ identifier: String) -> String {
    quoteIdentifier(identifier)
}
