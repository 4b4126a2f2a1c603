// The one rule for "is this column the rowid?": the ORM (which leaves an alias out of INSERT),
// the table rebuild (which copies rowids unless a column carries them) and the dump ask it.

import StrataKernel
import Foundation

/// Whether a column is an alias for the rowid, decided as SQLite decides it
/// (<https://www.sqlite.org/lang_createtable.html#rowid>).
///
/// It is when the table has rowids (not `WITHOUT ROWID`), the column alone is the primary key,
/// its declared type is `INTEGER` (in any case; `INT`, `BIGINT` or `INTEGER(8)` are not), and the
/// key is not declared `PRIMARY KEY DESC` in the column's own definition. SQLite's quirk: the
/// same `DESC` written in a table constraint, `PRIMARY KEY("id" DESC)`, still makes an alias, so
/// `descendingColumnConstraint` is true only for the column-constraint spelling.
///
/// A column that is not an alias but declared `INTEGER PRIMARY KEY DESC` accepts NULL and never
/// takes the rowid: an insert that leaves it out stores NULL there.
/// - Parameters:
///   - declaredType: the declared type as written or as `PRAGMA table_info` reports it.
///   - isSolePrimaryKey: the column is the whole primary key (not part of a composite one).
///   - descendingColumnConstraint: the column's definition says `PRIMARY KEY DESC`.
///   - withoutRowID: the table is `WITHOUT ROWID`.
package func isRowIDAlias(declaredType: String, isSolePrimaryKey: Bool, descendingColumnConstraint: Bool, withoutRowID: Bool) -> Bool {
    guard isSolePrimaryKey, !descendingColumnConstraint, !withoutRowID else { return false }
    return sameIdentifier(declaredType.trimmingCharacters(in: .whitespacesAndNewlines), "INTEGER")
}

/// Whether a `CREATE TABLE` statement's options (what follows the closing parenthesis, as
/// ``Connection/tableOptions(ofCreateTableSQL:)`` gives them) include `WITHOUT ROWID`.
package func tableOptionsAreWithoutRowID(_ options: String) -> Bool {
    // Options are keywords, so their ASCII letters with whitespace removed are compared.
    let letters = options.utf8.filter { !($0 == 0x20 || (0x09...0x0D).contains($0)) }.map { (0x61...0x7A).contains($0) ? $0 - 0x20 : $0 }
    return String(decoding: letters, as: UTF8.self).contains("WITHOUTROWID")
}

extension SchemaReader {
    /// The column of a table of the main schema that aliases its rowid, by ``isRowIDAlias(declaredType:isSolePrimaryKey:descendingColumnConstraint:withoutRowID:)``;
    /// nil when it has none (or there is no such table).
    ///
    /// A live table cannot say how its key's `DESC` was written, so the one thing that tells the
    /// spellings apart is asked instead: SQLite builds a primary-key index (origin `pk`) exactly
    /// when a rowid table's key is not an alias.
    package func rowIDAliasColumn(ofTable table: String) throws -> TableColumn? {
        guard let entry = try self.table(named: table), entry.virtualTableModule == nil else { return nil }
        let keys = try columns(ofTable: entry.name).filter { $0.primaryKeyIndex > 0 }
        guard keys.count == 1 else { return nil }
        let keyIndex = try indexes(ofTable: entry.name).first { $0.origin == .primaryKeyConstraint }
        let withoutRowID = tableOptionsAreWithoutRowID(Connection.tableOptions(ofCreateTableSQL: entry.sql ?? ""))
        let alias = isRowIDAlias(
            declaredType: keys[0].declaredType, isSolePrimaryKey: true,
            descendingColumnConstraint: !withoutRowID && keyIndex != nil, withoutRowID: withoutRowID)
        return alias ? keys[0] : nil
    }

    /// The collations that tell `column`'s values apart as keys of `table`: the ones its
    /// one-column primary key and UNIQUE indexes declare (which may differ from the column's
    /// own), the primary key's first. Empty when there is none (a rowid alias, no unique key).
    package func keyIndexCollations(ofTable table: String, column: String) throws -> [String] {
        guard let entry = try self.table(named: table) else { return [] }
        let keyIndexes = try indexes(ofTable: entry.name).filter { index in
            index.isUnique && !index.isPartial && index.columns.count == 1 && index.columns[0].name.map { sameIdentifier($0, column) } == true
        }
        let ordered = keyIndexes.filter { $0.origin == .primaryKeyConstraint } + keyIndexes.filter { $0.origin != .primaryKeyConstraint }
        return ordered.compactMap { $0.columns[0].collation }
    }
}
