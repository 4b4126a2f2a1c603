// `checkSchema`: passes on the tables `createTable` makes, and names every difference of a
// hand-made table that would make a record's reads, writes or declared constraints go wrong.
import Foundation
import StrataSQift
import StrataTestSupport
import Testing
@testable import StrataRecords

enum SchemaCheckShelf {
    /// A record whose key is the rowid itself, over a table that declares no key column.
    @Record(table: "note") struct Note: Equatable { @PrimaryKey @Column("rowid") var id: Int64?; var text: String }
    /// A column the database computes.
    @Record(table: "total") struct Total: Equatable { @PrimaryKey var id: Int64?; var amount: Int; var doubled: Int }

    /// A reference that is also `@Indexed`: one index, and one difference when it is missing.
    @Record(table: "loan") struct Loan: Equatable { @PrimaryKey var id: Int64?; @References(ConstraintShelf.Author.self) @Indexed var authorId: Int64 }

    @Record(table: "probe") struct IntProbe: Equatable { var v: Int }
    @Record(table: "probe") struct DoubleProbe: Equatable { var v: Double }
    @Record(table: "probe") struct TextProbe: Equatable { var v: String }
    @Record(table: "probe") struct BlobProbe: Equatable { var v: Data }
}

private func mismatches(_ body: () throws -> Void) -> [String]? {
    do {
        try body()
        return nil
    } catch RecordSchemaError.mismatch(let differences) {
        return differences
    } catch {
        return ["unexpected \(error)"]
    }
}

@Suite struct RecordSchemaCheckTests {
    @Test func passesOnTablesCreateTableMade() throws {
        let db = try connection(
            withTablesOf: ConstraintShelf.Author.self, ConstraintShelf.Book.self, ConstraintShelf.Employee.self, ConstraintShelf.Order.self,
            ConstraintShelf.Country.self, ConstraintShelf.City.self, ConstraintShelf.Profile.self, SchemaCheckShelf.DoubleProbe.self)
        try ConstraintShelf.Author.checkSchema(db)
        try ConstraintShelf.Book.checkSchema(db)
        try ConstraintShelf.Employee.checkSchema(db)
        try ConstraintShelf.Order.checkSchema(db)
        try ConstraintShelf.Country.checkSchema(db)
        try ConstraintShelf.City.checkSchema(db)
        try ConstraintShelf.Profile.checkSchema(db)
        try SchemaCheckShelf.DoubleProbe.checkSchema(db)

        // A rowid key, an extra nullable column and one with a default are no difference.
        try db.execute("CREATE TABLE note (text TEXT NOT NULL, tag TEXT, created TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)")
        try SchemaCheckShelf.Note.checkSchema(db)
        var note = SchemaCheckShelf.Note(id: nil, text: "t")
        try note.insert(db)
        #expect(try SchemaCheckShelf.Note.fetchAll(db) == [note])

        // A record over an FTS5 table: its columns and rowid are found; FTS says nothing of types.
        let search = try Connection()
        try Note.createFTS5Table(search)
        try Note.checkSchema(search)
        #expect(mismatches { try BookText.checkSchema(search) } == [#"table "book_text" is missing"#])
    }

    @Test func namesAMissingTable() throws {
        let db = try Connection()
        #expect(mismatches { try ConstraintShelf.Book.checkSchema(db) } == [#"table "book" is missing"#])
    }

    @Test func namesEveryDifferenceOfAHandMadeTable() throws {
        let db = try Connection()
        try db.execute(
            """
            CREATE TABLE author (id INTEGER, name TEXT NOT NULL);
            CREATE TABLE book (id INTEGER PRIMARY KEY, authorID INTEGER NOT NULL REFERENCES author (id), title TEXT NOT NULL,
                               year TEXT, extra TEXT NOT NULL);
            CREATE TABLE employee (id INTEGER PRIMARY KEY, name TEXT NOT NULL, managerId INTEGER NOT NULL);
            CREATE TABLE total (id INTEGER PRIMARY KEY, amount INTEGER NOT NULL, doubled INTEGER NOT NULL AS (amount * 2));
            """)
        #expect(
            mismatches { try ConstraintShelf.Author.checkSchema(db) } == [
                #"table "author" has no primary key, but the record's is "id""#,
                #"column "name" of table "author" is not UNIQUE"#
            ])
        #expect(
            mismatches { try ConstraintShelf.Book.checkSchema(db) } == [
                #"column "authorId" of table "book" is spelled "authorID" in the database (the names differ in case)"#,
                #"column "year" of table "book" is declared 'TEXT' (TEXT affinity), which would not give back the record's INTEGER values"#,
                #"column "year" of table "book" allows NULL, but the record's property is not optional: a NULL would not read back"#,
                #"column "metadata" of table "book" is missing"#,
                #"column "extra" of table "book" is NOT NULL without a default, and the record has no property for it: inserting a record would fail"#,
                #"column "authorId" of table "book" references "author" ("id") ON DELETE NO ACTION ON UPDATE NO ACTION, but the record declares ON DELETE CASCADE ON UPDATE NO ACTION"#,
                #"column "authorId" of table "book" has no index"#,
                #"column "title" of table "book" has no index"#
            ])
        #expect(
            mismatches { try ConstraintShelf.Employee.checkSchema(db) } == [
                #"column "managerId" of table "employee" is NOT NULL, but the record's property is optional: saving nil would fail"#,
                #"column "managerId" of table "employee" has no foreign key to "employee" ("id")"#,
                #"column "managerId" of table "employee" has no index"#
            ])
        #expect(
            mismatches { try SchemaCheckShelf.Total.checkSchema(db) } == [
                #"column "doubled" of table "total" is a generated column, which an INSERT or UPDATE cannot write"#
            ])

        // What was named goes wrong: the record cannot be saved where the table is NOT NULL.
        #expect(throws: SQLiteError.self) { _ = try ConstraintShelf.Employee(id: nil, name: "n", managerId: nil).inserted(db) }
        #expect(throws: SQLiteError.self) { _ = try SchemaCheckShelf.Total(id: nil, amount: 1, doubled: 2).inserted(db) }
        // A matching table passes again once the differences are fixed.
        try db.execute("DROP TABLE employee")
        try ConstraintShelf.Employee.createTable(db)
        try ConstraintShelf.Employee.checkSchema(db)
    }

    @Test func aColumnIndexedTwiceIsOneIndexAndOneDifference() throws {
        let db = try connection(withTablesOf: ConstraintShelf.Author.self, SchemaCheckShelf.Loan.self)
        let indexes: [String] = try db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'loan'")
        #expect(indexes == ["loan_authorId_idx"])
        try SchemaCheckShelf.Loan.checkSchema(db)
        try db.execute("DROP INDEX loan_authorId_idx")
        #expect(mismatches { try SchemaCheckShelf.Loan.checkSchema(db) } == [#"column "authorId" of table "loan" has no index"#])
    }

    @Test func theErrorSaysEveryDifference() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE author (id INTEGER PRIMARY KEY, Name TEXT)")
        let error = RecordSchemaError.mismatch([
            #"column "name" of table "author" is spelled "Name" in the database (the names differ in case)"#,
            #"column "name" of table "author" allows NULL, but the record's property is not optional: a NULL would not read back"#,
            #"column "name" of table "author" is not UNIQUE"#
        ])
        #expect(throws: error) { try ConstraintShelf.Author.checkSchema(db) }
        #expect(
            error.description == """
                The database does not match the records:
                - column "name" of table "author" is spelled "Name" in the database (the names differ in case)
                - column "name" of table "author" allows NULL, but the record's property is not optional: a NULL would not read back
                - column "name" of table "author" is not UNIQUE
                """)
    }

    /// The affinity rule against SQLite itself: a column type is reported exactly when some value
    /// the record stores does not come back equal.
    @Test func affinityProblemsAreExactlyTheValuesThatDoNotReadBack() throws {
        let db = try Connection()
        func readsBack<R: Record & Equatable>(_ values: [R], declaredType: String) throws -> Bool {
            try db.execute("DROP TABLE IF EXISTS probe")
            try db.execute("CREATE TABLE probe (v " + declaredType + " NOT NULL)")
            for value in values { _ = try value.inserted(db) }
            return (try? R.fetchAll(db)) == values
        }
        let ints = [5, -1, Int.max].map(SchemaCheckShelf.IntProbe.init)
        let doubles = [2.0, 2.5, -0.0, 1e300].map(SchemaCheckShelf.DoubleProbe.init)
        let texts = ["007", "1e3", "abc", " 12", "3.0"].map(SchemaCheckShelf.TextProbe.init)
        let blobs = [Data([0x30, 0x37]), Data()].map(SchemaCheckShelf.BlobProbe.init)
        for declared in ["INTEGER", "INT", "REAL", "DOUBLE", "TEXT", "VARCHAR(9)", "BLOB", "", "NUMERIC", "DECIMAL(10,2)", "BOOLEAN"] {
            let cases: [(String, Bool)] = [
                ("INTEGER", try readsBack(ints, declaredType: declared)),
                ("REAL", try readsBack(doubles, declaredType: declared)),
                ("TEXT", try readsBack(texts, declaredType: declared)),
                ("BLOB", try readsBack(blobs, declaredType: declared))
            ]
            for (recordType, ok) in cases {
                #expect((affinityProblem(recordType: recordType, declaredType: declared) == nil) == ok, "\(recordType) in \(declared)")
            }
        }
    }

    /// Any names and shapes: the table the records' DDL creates matches its declaration, and the
    /// same table with one column's name in another case differs by exactly that.
    @Test func createdTablesMatchAndACaseChangeIsNamed() throws {
        func swapCase(_ name: String) -> String {
            String(
                decoding: name.utf8.map { byte -> UInt8 in
                    switch byte {
                    case 0x41...0x5A: return byte + 0x20
                    case 0x61...0x7A: return byte - 0x20
                    default: return byte
                    }
                }, as: UTF8.self)
        }
        try PropertyCheck.run("checkSchema of created tables", cases: 30) { random in
            let names = Gen.distinctIdentifiers(&random, count: 7)
            let (parent, table, key) = (names[0], names[1], names[2])
            let db = try Connection()
            try db.execute("PRAGMA foreign_keys = ON")
            let parentColumns = [RecordColumn.describing(key, as: Int64?.self, isPrimaryKey: true)]
            for sql in try RecordStatements(table: parent, columns: parentColumns, primaryKeyIndex: 0).createTableStatements(
                ifNotExists: false, constraints: [])
            {
                try db.execute(sql)
            }
            var columns: [RecordColumn] = []
            var constraints: [RecordConstraint] = []
            for name in names[3...] {
                let isOptional = random.oneIn(2)
                columns.append(
                    RecordColumn(name: name, sqlType: random.pick(["INTEGER", "REAL", "TEXT", "BLOB", ""]), isOptional: isOptional, isPrimaryKey: false))
                switch random.int(0...4) {
                case 0: constraints.append(RecordConstraint(column: name, kind: .unique))
                case 1: constraints.append(RecordConstraint(column: name, kind: .indexed))
                case 2:
                    constraints.append(
                        RecordConstraint(
                            column: name,
                            kind: .references(
                                record: "P", table: parent, key: key, onDelete: random.pick([nil, .cascade, .setNull]), onUpdate: random.pick([nil, .restrict]))
                        ))
                case 3: constraints.append(RecordConstraint(column: name, kind: .check(quoteIdentifier(name) + " IS NOT " + quoteStringLiteral(name))))
                default: break
                }
            }
            let keyAt = random.int(0...columns.count)
            if keyAt < columns.count {
                columns[keyAt] = RecordColumn(
                    name: columns[keyAt].name, sqlType: columns[keyAt].sqlType, isOptional: columns[keyAt].isOptional, isPrimaryKey: true)
            }
            let keyIndex = keyAt < columns.count ? keyAt : nil
            func create(_ columns: [RecordColumn], _ constraints: [RecordConstraint]) throws {
                try db.execute("DROP TABLE IF EXISTS " + quoteIdentifier(table))
                for sql in try RecordStatements(table: table, columns: columns, primaryKeyIndex: keyIndex).createTableStatements(
                    ifNotExists: false, constraints: constraints)
                {
                    try db.execute(sql)
                }
            }
            try create(columns, constraints)
            let matching = try recordSchemaDifferences(table: table, columns: columns, primaryKeyIndex: keyIndex, constraints: constraints, in: db)
            try require(matching.isEmpty, "created table differs: \(matching)")

            let changed = random.int(0...(columns.count - 1))
            let original = columns[changed].name
            let swapped = swapCase(original)
            guard swapped != original else { return }
            var renamed = columns
            renamed[changed] = RecordColumn(
                name: swapped, sqlType: columns[changed].sqlType, isOptional: columns[changed].isOptional, isPrimaryKey: columns[changed].isPrimaryKey)
            try create(renamed, constraints.map { $0.column == original ? RecordConstraint(column: swapped, kind: $0.kind) : $0 })
            let differences = try recordSchemaDifferences(table: table, columns: columns, primaryKeyIndex: keyIndex, constraints: constraints, in: db)
            let expected =
                "column \(quoteIdentifier(original)) of table \(quoteIdentifier(table)) is spelled \(quoteIdentifier(swapped)) in the database (the names differ in case)"
            try require(differences == [expected], "case change: \(differences)")
        }
    }
}
