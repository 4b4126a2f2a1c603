import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Row {
    /// The index of each of `names` in this row's statement, resolved once per statement and
    /// record type (and again after SQLite re-prepares the statement), so a record read row after
    /// row costs what hand-written reads by index cost.
    ///
    /// - Returns: the indexes, or the first name the statement has no column for.
    package func columnIndexes(cachedFor type: Any.Type, names: () -> [String]) -> Result<[Int32], MissingColumn> {
        let key = ObjectIdentifier(type)
        if let cached = statement.statementCache(for: key, as: ResolvedColumnIndexes.self) {
            return .success(cached.indexes)
        }
        let names = names()
        var indexes: [Int32] = []
        indexes.reserveCapacity(names.count)
        for name in names {
            // SQLite compares column names without regard to ASCII case.
            guard let index = statement.prepared.columnIndex(forName: name) ?? caseInsensitiveIndex(of: name) else {
                return .failure(MissingColumn(name: name, available: statement.columnNames))
            }
            indexes.append(index)
        }
        statement.storeStatementCache(ResolvedColumnIndexes(indexes), for: key)
        return .success(indexes)
    }

    private func caseInsensitiveIndex(of name: String) -> Int32? {
        let lowered = name.lowercased()
        return statement.columnNames.firstIndex { $0.lowercased() == lowered }.map(Int32.init)
    }

    /// Whether column `index` holds NULL.
    package func isNull(at index: Int32) -> Bool {
        dataType(at: Int(index)) == .null
    }

    /// The storage class of column `index`, as SQL names it (`INTEGER`, `TEXT`, ...), for messages.
    func storageClassName(at index: Int32) -> String {
        let storageClass = dataType(at: Int(index))
        // SQL calls the floating-point class REAL; the enum's case is `.float` because SQift's
        // and Squeal's names for the type spell it so.
        return storageClass == .float ? "REAL" : "\(storageClass)".uppercased()
    }

    /// The indexes one reader type resolved on a statement, kept in the statement's cache.
    private final class ResolvedColumnIndexes {
        let indexes: [Int32]
        init(_ indexes: [Int32]) { self.indexes = indexes }
    }

    /// A column a reader asked for that the statement does not have.
    package struct MissingColumn: Error {
        package let name: String
        package let available: [String]
    }
}

extension Statement {
    /// The row the statement is on, for layers that step it themselves.
    package var currentRow: Row { Row(statement: self) }
}

extension Row {
    /// The statement's handle, for readers that load it once per row instead of once per column
    /// (generated records read every column of a row through it).
    @inlinable package var statementHandle: SQLiteStatementHandle { statement.handle }
}

/// The value of column `index` of `handle`'s current row as `T`, or nil for NULL or a value that
/// does not convert: what `Row`'s reads return, for code that holds the handle itself.
@inlinable @inline(__always)
package func columnValue<T: Extractable>(of handle: SQLiteStatementHandle, at index: Int32, as type: T.Type = T.self) -> T? {
    guard let value = sqlite3_column_value(handle, index) else { return nil }
    let type = sqlite3_value_type(value)
    return type == SQLITE_NULL ? nil : T.extractSelf(from: value, type: type)
}
