import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Connection {
    /// Orders two strings for a collating sequence; must be consistent (a total order) for indexes to work.
    public typealias Collation = (String, String) -> ComparisonResult

    /// Adds (or replaces) a collating sequence for `COLLATE name` and `ORDER BY ... COLLATE name`.
    ///
    /// ```swift
    /// connection.createCollation(named: "NUMERIC") { lhs, rhs in
    ///     lhs.compare(rhs, options: .numeric, locale: .autoupdatingCurrent)
    /// }
    /// ```
    /// SQift's form does not throw: when SQLite refuses the registration (replacing a collation
    /// that a running statement uses, say) the previous state stays and SQL naming an unknown
    /// collation fails with "no such collation sequence". Use ``addCollation(named:collate:)`` to
    /// be told. See <https://www.sqlite.org/c3ref/create_collation.html>.
    public func createCollation(named name: String, collate: @escaping Collation) {
        try? addCollation(named: name, collate: collate)
    }

    /// Adds (or replaces) a collating sequence, reporting a refused registration.
    ///
    /// - Throws: `SQLiteError` when SQLite refuses it (`SQLITE_BUSY` while a running statement
    ///   uses the collation being replaced, `SQLITE_MISUSE`, `SQLITE_NOMEM`).
    public func addCollation(named name: String, collate: @escaping Collation) throws {
        let box = CallbackBox(collate)
        let pointer = box.retainedPointer()
        let code = sqlite3_create_collation_v2(
            handle, name, SQLITE_UTF8, pointer,
            { pointer, lhsCount, lhs, rhsCount, rhs in
                guard let pointer else { return 0 }
                let collate = CallbackBox<Collation>.from(pointer)
                let left = String(decoding: UnsafeRawBufferPointer(start: lhs, count: Int(lhsCount)), as: UTF8.self)
                let right = String(decoding: UnsafeRawBufferPointer(start: rhs, count: Int(rhsCount)), as: UTF8.self)
                return Int32(collate(left, right).rawValue)
            },
            { CallbackBox<Collation>.release($0) }
        )
        guard code == SQLITE_OK else {
            // SQLite does not call the destroy callback when the registration fails.
            CallbackBox<Collation>.release(pointer)
            throw SQLiteError(handle: handle, code: code)
        }
    }
}
