import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// A Northwind-shaped database: 11 tables, ~3,300 rows, foreign keys, indexes, a view, a trigger,
/// blobs, reals, NULLs and unicode.
func makeNorthwind(at path: String) throws -> Connection {
    let db = try Connection(storageLocation: .onDisk(path))
    var random = SeededRandom(seed: 42)
    try db.execute(
        """
        PRAGMA foreign_keys = ON;
        CREATE TABLE categories(id INTEGER PRIMARY KEY, name TEXT NOT NULL, description TEXT, picture BLOB);
        CREATE TABLE suppliers(id INTEGER PRIMARY KEY, company TEXT NOT NULL, contact TEXT, city TEXT, country TEXT, phone TEXT, homepage TEXT);
        CREATE TABLE products(id INTEGER PRIMARY KEY, name TEXT NOT NULL, supplier_id INTEGER REFERENCES suppliers(id),
            category_id INTEGER REFERENCES categories(id), quantity_per_unit TEXT, unit_price REAL DEFAULT 0,
            units_in_stock INTEGER, discontinued INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE customers(id TEXT PRIMARY KEY, company TEXT NOT NULL, contact TEXT, city TEXT, region TEXT, country TEXT) WITHOUT ROWID;
        CREATE TABLE employees(id INTEGER PRIMARY KEY AUTOINCREMENT, last_name TEXT, first_name TEXT, title TEXT,
            birth_date TEXT, reports_to INTEGER REFERENCES employees(id), photo BLOB, notes TEXT);
        CREATE TABLE shippers(id INTEGER PRIMARY KEY, company TEXT, phone TEXT);
        CREATE TABLE region(id INTEGER PRIMARY KEY, description TEXT NOT NULL);
        CREATE TABLE territories(id TEXT PRIMARY KEY, description TEXT, region_id INTEGER REFERENCES region(id));
        CREATE TABLE employee_territories(employee_id INTEGER REFERENCES employees(id), territory_id TEXT REFERENCES territories(id),
            PRIMARY KEY(employee_id, territory_id));
        CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id TEXT REFERENCES customers(id), employee_id INTEGER REFERENCES employees(id),
            order_date TEXT, shipped_date TEXT, ship_via INTEGER REFERENCES shippers(id), freight REAL, ship_name TEXT, ship_country TEXT);
        CREATE TABLE order_details(order_id INTEGER REFERENCES orders(id), product_id INTEGER REFERENCES products(id),
            unit_price REAL NOT NULL, quantity INTEGER NOT NULL, discount REAL NOT NULL DEFAULT 0);
        CREATE INDEX orders_by_customer ON orders(customer_id);
        CREATE INDEX details_by_product ON order_details(product_id, order_id);
        CREATE UNIQUE INDEX products_by_name ON products(name);
        CREATE VIEW order_totals AS SELECT order_id, sum(unit_price * quantity * (1 - discount)) AS total FROM order_details GROUP BY order_id;
        CREATE TRIGGER stock_after_detail AFTER INSERT ON order_details BEGIN
            UPDATE products SET units_in_stock = units_in_stock - NEW.quantity WHERE id = NEW.product_id;
        END;
        """)
    let countries = ["Deutschland", "España", "France", "Ísland", "日本", "Sverige", "UK", "USA", "Brasil", "Česko"]
    func blob(_ count: Int) -> Data { Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }) }
    try db.transaction {
        for id in 1...8 {
            try db.run("INSERT INTO categories VALUES (?, ?, ?, ?)", id, "Category \(id) — ünïcødé", id % 3 == 0 ? nil : "Line 1\nLine 'two'", blob(200 + id))
        }
        for id in 1...29 {
            try db.run(
                "INSERT INTO suppliers VALUES (?, ?, ?, ?, ?, ?, ?)", id, "Supplier \(id) \"Ltd\"", "Contact \(id)",
                "City \(id % 7)", countries[id % countries.count], id % 4 == 0 ? nil : "(0\(id)) 555-\(1000 + id)", id % 5 == 0 ? "http://s\(id).example" : nil)
        }
        for id in 1...77 {
            try db.run(
                "INSERT INTO products VALUES (?, ?, ?, ?, ?, ?, ?, ?)", id, "Product \(id) 🍵", 1 + id % 29, 1 + id % 8,
                "\(id % 12 + 1) boxes", Double.random(in: 2...263, using: &random), 10_000, id % 9 == 0 ? 1 : 0)
        }
        for id in 0..<91 {
            let code = String(format: "C%04d", id)
            try db.run(
                "INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?)", code, "Customer \(id)", "Contact \(id)", "City \(id % 13)",
                id % 3 == 0 ? nil : "Region \(id % 4)", countries[id % countries.count])
        }
        for id in 1...9 {
            try db.run(
                "INSERT INTO employees(last_name, first_name, title, birth_date, reports_to, photo, notes) VALUES (?, ?, ?, ?, ?, ?, ?)",
                "Last\(id)", "Fírst\(id)", id == 2 ? "Vice President" : "Sales Representative", "19\(50 + id)-0\(id)-1\(id)",
                id <= 2 ? nil : 2, blob(64), id % 2 == 0 ? nil : "Notes with a\ttab and ; semicolon")
        }
        try db.execute("DELETE FROM employees WHERE id = 9") // a gap, and sqlite_sequence still at 9
        for id in 1...3 { try db.run("INSERT INTO shippers VALUES (?, ?, ?)", id, "Shipper \(id)", "(503) 555-\(9830 + id)") }
        for (id, name) in ["Eastern", "Western", "Northern", "Southern"].enumerated() { try db.run("INSERT INTO region VALUES (?, ?)", id + 1, name) }
        for id in 0..<53 { try db.run("INSERT INTO territories VALUES (?, ?, ?)", String(format: "%05d", 1000 + id * 17), "Territory \(id)", 1 + id % 4) }
        for id in 0..<49 {
            try db.run("INSERT INTO employee_territories VALUES (?, ?)", 1 + id % 8, String(format: "%05d", 1000 + (id % 53) * 17))
        }
        var detailCount = 0
        for id in 10_248..<(10_248 + 830) {
            try db.run(
                "INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", id, String(format: "C%04d", id % 91), 1 + id % 8,
                "1997-\(1 + id % 12)-\(1 + id % 28)", id % 10 == 0 ? nil : "1997-\(1 + id % 12)-\(1 + (id + 3) % 28)",
                1 + id % 3, Double.random(in: 0...1000, using: &random), "Ship \(id)", countries[id % countries.count])
            let lines = 1 + Int.random(in: 0...4, using: &random)
            for line in 0..<lines where detailCount < 2155 {
                detailCount += 1
                try db.run(
                    "INSERT INTO order_details VALUES (?, ?, ?, ?, ?)", id, 1 + (id + line * 7) % 77,
                    Double.random(in: 2...100, using: &random), 1 + line * 5, [0, 0.05, 0.1, 0.25][line % 4])
            }
        }
    }
    return db
}

/// An exact fingerprint of each table's rows, in rowid or primary key order: FNV-1a over each
/// value's storage class and bytes (doubles by bit pattern).
func tableChecksums(_ db: Connection) throws -> [String: UInt64] {
    // Shadow tables are left out: an FTS index built in another order is laid out differently.
    let tables: [String] = try db.query(
        "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'virtual') AND name NOT LIKE 'sqlite_%' ORDER BY name")
    var sums: [String: UInt64] = [:]
    for table in tables {
        let withoutRowid: Int? = try db.query("SELECT wr FROM pragma_table_list WHERE name = ?", table)
        let columns: [String] = try db.query("SELECT name FROM pragma_table_info(?)", table)
        let quoted = columns.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        let select =
            withoutRowid == 1
            ? "SELECT \(quoted.joined(separator: ", ")) FROM \"\(table.replacingOccurrences(of: "\"", with: "\"\""))\" ORDER BY 1"
            : "SELECT _rowid_, \(quoted.joined(separator: ", ")) FROM \"\(table.replacingOccurrences(of: "\"", with: "\"\""))\" ORDER BY _rowid_"
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        let rows: [[Any?]] = try db.query(select) { $0.values }
        for row in rows {
            for value in row {
                switch value {
                case let v as Int64: mix([1]); mix(withUnsafeBytes(of: v) { Array($0) })
                case let v as Double: mix([2]); mix(withUnsafeBytes(of: v.bitPattern) { Array($0) })
                case let v as String: mix([3]); mix(v.utf8); mix([0xFF])
                case let v as Data: mix([4]); mix(v); mix([0xFF])
                default: mix([0])
                }
            }
        }
        let rowCount = rows.count
        sums[table] = hash ^ UInt64(rowCount)
    }
    return sums
}

func dumpText(_ db: Connection, tables: [String]? = nil) throws -> String {
    var text = ""
    try db.dump(to: &text, tables: tables)
    return text
}

@Suite struct DumpTests {
    @Test func northwindRoundTripsThroughAFile() throws {
        let directory = try TemporaryDirectory()
        let source = try makeNorthwind(at: directory.path("northwind.db"))
        let rows: Int? = try source.query(
            """
            SELECT (SELECT count(*) FROM orders) + (SELECT count(*) FROM order_details) + (SELECT count(*) FROM products)
              + (SELECT count(*) FROM customers) + (SELECT count(*) FROM territories)
            """)
        #expect((rows ?? 0) > 3000)
        let dumpURL = directory.url.appendingPathComponent("northwind.sql")
        try source.dump(to: dumpURL)

        let restored = try makeConnection(.onDisk(directory.path("restored.db")), executing: "PRAGMA foreign_keys = ON")
        try restored.restore(fromDumpAt: dumpURL)
        #expect(try tableChecksums(restored) == tableChecksums(source))
        #expect(try tableChecksums(source).count == 11)
        // Schema objects, the AUTOINCREMENT counter and the connection's own setting survive.
        let schema = "SELECT type, name, sql FROM sqlite_master ORDER BY type, name"
        let sourceSchema: [String] = try source.query(schema) { "\($0[0] as String? ?? "")|\($0[1] as String? ?? "")|\($0[2] as String? ?? "")" }
        let restoredSchema: [String] = try restored.query(schema) { "\($0[0] as String? ?? "")|\($0[1] as String? ?? "")|\($0[2] as String? ?? "")" }
        #expect(sourceSchema == restoredSchema)
        let sequence: Int? = try restored.query("SELECT seq FROM sqlite_sequence WHERE name = 'employees'")
        #expect(sequence == 9)
        let foreignKeys: Int? = try restored.query("PRAGMA foreign_keys")
        #expect(foreignKeys == 1)
        #expect(try restored.query("PRAGMA foreign_key_check") as [String] == [])
        #expect(try restored.query("PRAGMA integrity_check") as String? == "ok")
        // The trigger came after the rows: stock was not decremented a second time.
        let stock: [Int] = try restored.query("SELECT units_in_stock FROM products ORDER BY id")
        #expect(stock == (try source.query("SELECT units_in_stock FROM products ORDER BY id") as [Int]))
        // Dumping the restored database gives the same text again.
        #expect(try dumpText(restored) == String(contentsOf: dumpURL, encoding: .utf8))
    }

    @Test func dumpsAreDeterministicAndOrdered() throws {
        let directory = try TemporaryDirectory()
        let source = try makeNorthwind(at: directory.path("northwind.db"))
        let first = try dumpText(source)
        let second = try dumpText(source)
        #expect(first == second)
        let lines = first.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "PRAGMA foreign_keys=OFF;")
        #expect(lines[1] == "BEGIN TRANSACTION;")
        #expect(lines.dropLast().last == "COMMIT;")
        let creates = lines.filter { $0.hasPrefix("CREATE TABLE") }.map { $0.split(separator: " ")[2].split(separator: "(")[0] }
        #expect(
            creates == [
                "categories", "customers", "employee_territories", "employees", "order_details", "orders",
                "products", "region", "shippers", "suppliers", "territories"
            ])
        func position(_ prefix: String) -> Int { lines.firstIndex { $0.hasPrefix(prefix) } ?? -1 }
        #expect(position("CREATE TABLE territories") < position("INSERT INTO \"categories\""))
        #expect(position("INSERT INTO \"territories\"") < position("CREATE INDEX"))
        #expect(position("CREATE INDEX details_by_product") < position("CREATE VIEW"))
        #expect(position("CREATE VIEW") < position("CREATE TRIGGER"))
        // Rows in rowid order, and the primary key order of a WITHOUT ROWID table.
        let orderIds = lines.filter { $0.hasPrefix("INSERT INTO \"orders\"") }.map { $0.split(separator: "(")[2].split(separator: ",")[0] }
        #expect(orderIds.first == "10248" && orderIds.count == 830)
        let customerIds = lines.filter { $0.hasPrefix("INSERT INTO \"customers\"") }.map { $0.split(separator: "(")[2].split(separator: ",")[0] }
        #expect(customerIds == customerIds.sorted())
        // Only the tables asked for, with their indexes and triggers.
        let partial = try dumpText(source, tables: ["order_details", "region"])
        #expect(partial.contains("CREATE TABLE order_details") && partial.contains("CREATE TABLE region"))
        #expect(!partial.contains("CREATE TABLE orders"))
        #expect(partial.contains("CREATE INDEX details_by_product") && partial.contains("CREATE TRIGGER stock_after_detail"))
        #expect(!partial.contains("orders_by_customer") && !partial.contains("CREATE VIEW"))
        #expect(throws: DumpError.noSuchTable("nope")) { try dumpText(source, tables: ["nope"]) }
    }

    @Test func everyStorageClassAndHostileIdentifiersRoundTrip() throws {
        let source = try Connection()
        try source.execute(
            #"""
            CREATE TABLE "we""ird [t]able" ("select" INTEGER PRIMARY KEY, "order" TEXT, "a b" REAL, "ünï ✓" BLOB, "x]y" ANY, "rowid" TEXT);
            CREATE TABLE [group](k TEXT, v, PRIMARY KEY (k, v)) WITHOUT ROWID;
            CREATE TABLE `from`(a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2) STORED, c TEXT GENERATED ALWAYS AS (upper(d)), d TEXT);
            CREATE TABLE plain(x);
            CREATE INDEX "idx ""q""" ON "we""ird [t]able"("order" DESC, "a b");
            CREATE VIEW "order" AS SELECT "order", "a b" FROM "we""ird [t]able";
            CREATE TRIGGER "trig;ger" INSTEAD OF INSERT ON "order" BEGIN
                INSERT INTO "we""ird [t]able"("order", "a b") VALUES (NEW."order", NEW."a b"); SELECT 1;
            END;
            CREATE VIRTUAL TABLE "docs ✍" USING fts5(title, body);
            CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT);
            CREATE VIRTUAL TABLE notes_index USING fts5(text, content='notes', content_rowid='id');
            """#)
        var random = SeededRandom(seed: 7)
        let edgeReals: [Double] = [
            0.1, -0.0, Double.leastNormalMagnitude / 3, Double.greatestFiniteMagnitude,
            -Double.leastNonzeroMagnitude, Double.infinity, -Double.infinity, 1e20, 100, 1.0 / 3.0
        ]
        let randomReals: [Double] = (0..<300).map { _ in Double(bitPattern: random.next()) }.filter { $0.isFinite }
        let reals = edgeReals + randomReals
        for (index, real) in reals.enumerated() {
            try source.run(
                "INSERT INTO \"we\"\"ird [t]able\" VALUES (?, ?, ?, ?, ?, ?)", index * 3 - 100, "it's \"quoted\"\nline;two\r\n--not a comment /*", real,
                Data((0..<(index % 5)).map { UInt8(truncatingIfNeeded: $0 * 77 + index) }),
                [Int64.min, Int64.max, 0, -1][index % 4], index % 2 == 0 ? nil : "shadow \(index)")
        }
        try source.execute(
            """
            INSERT INTO "we""ird [t]able"("order") VALUES (CAST(X'610062' AS TEXT)), (CAST(X'FFFE41' AS TEXT)), (''), (char(0x1F600));
            INSERT INTO [group] VALUES ('b', 2), ('a', X'00FF'), ('a', 1.5), ('c', 'text');
            INSERT INTO `from`(a, d) VALUES (1, 'x'), (NULL, NULL), (3, 'ü');
            INSERT INTO plain(rowid, x) VALUES (5, 'five'), (2, 'two'), (1000, X'');
            INSERT INTO "docs ✍"(rowid, title, body) VALUES (10, 'Hello', 'wörld'), (3, 'Bye', 'it''s done');
            INSERT INTO notes VALUES (1, 'alpha beta'), (2, 'gamma');
            INSERT INTO notes_index(notes_index) VALUES ('rebuild');
            """)
        let first = try dumpText(source)
        #expect(first == (try dumpText(source)))
        #expect(first.contains("CAST(X'610062' AS TEXT)") && first.contains("1e999") && first.contains("-1e999"))
        let restored = try Connection()
        try restored.restore(fromDump: first)
        let (restoredSums, sourceSums) = (try tableChecksums(restored), try tableChecksums(source))
        #expect(restoredSums == sourceSums, "\(restoredSums.filter { sourceSums[$0.key] != $0.value }.keys.sorted())")
        #expect(try dumpText(restored) == first)
        // A self-contained index's shadow tables are not dumped (its rows are), yet full-text
        // search works; an external-content index is copied exactly, shadow table by shadow table.
        #expect(!first.contains("docs ✍_data") && first.contains("INSERT INTO \"notes_index_idx\""))
        let hits: [Int] = try restored.query("SELECT rowid FROM \"docs ✍\" WHERE \"docs ✍\" MATCH 'wörld'")
        #expect(hits == [10])
        let noteHits: [Int] = try restored.query("SELECT rowid FROM notes_index WHERE notes_index MATCH 'gamma'")
        #expect(noteHits == [2])
        // The rowids of a table without an INTEGER PRIMARY KEY are kept, under a free alias.
        let plain: [Int] = try restored.query("SELECT rowid FROM plain ORDER BY rowid")
        #expect(plain == [2, 5, 1000])
        let shadowed: [Int] = try restored.query("SELECT _rowid_ FROM \"we\"\"ird [t]able\" WHERE \"select\" = -100")
        #expect(shadowed == [-100])
        // Every double reads back bit for bit.
        let restoredReals: [Double] = try restored.query("SELECT \"a b\" FROM \"we\"\"ird [t]able\" WHERE \"a b\" IS NOT NULL ORDER BY \"select\"")
        let sourceReals: [Double] = try source.query("SELECT \"a b\" FROM \"we\"\"ird [t]able\" WHERE \"a b\" IS NOT NULL ORDER BY \"select\"")
        #expect(sourceReals.count == reals.count)
        #expect(restoredReals.map(\.bitPattern) == sourceReals.map(\.bitPattern))
        // Text with a NUL or invalid UTF-8 keeps its bytes.
        let nul: String? = try restored.query("SELECT hex(\"order\") FROM \"we\"\"ird [t]able\" WHERE \"order\" = CAST(X'610062' AS TEXT)")
        #expect(nul == "610062")
    }

    @Test func restoringIntoANonEmptyDatabaseThrows() throws {
        let source = try makeConnection(executing: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        let text = try dumpText(source)
        let target = try makeConnection(executing: "CREATE TABLE existing(y)")
        #expect(throws: DumpError.databaseNotEmpty(objectCount: 1)) { try target.restore(fromDump: text) }
        #expect(
            DumpError.databaseNotEmpty(objectCount: 1).description
                == "cannot restore a dump into a database that is not empty (it has 1 schema object)")
        let count: Int? = try target.query("SELECT count(*) FROM sqlite_master")
        #expect(count == 1)
    }

    @Test func aFailingRestoreRollsBack() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("broken.sql")
        try "PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\nCREATE TABLE t(x);\nINSERT INTO t VALUES(1);\nINSERT INTO nope VALUES(2);\nCOMMIT;\n"
            .write(to: url, atomically: true, encoding: .utf8)
        let target = try Connection()
        #expect(throws: SQLiteError.self) { try target.restore(fromDumpAt: url) }
        #expect(!target.isInTransaction)
        #expect(try target.query("SELECT count(*) FROM sqlite_master") as Int? == 0)
        try "CREATE TABLE t(x);\nINSERT INTO t VALUES('unterminated;\n".write(to: url, atomically: true, encoding: .utf8)
        let other = try Connection()
        #expect(throws: DumpError.self) { try other.restore(fromDumpAt: url) }
    }

    @Test func statementsSplitAcrossChunksAndTriggerBodies() throws {
        // A trigger's body holds `;` that do not end it; a chunk boundary may fall anywhere.
        let source = try Connection()
        try source.execute(
            """
            CREATE TABLE a(x TEXT); CREATE TABLE log(m TEXT);
            CREATE TRIGGER t AFTER INSERT ON a BEGIN INSERT INTO log VALUES ('a;b'); INSERT INTO log VALUES (NEW.x); END;
            """)
        for index in 0..<3000 { try source.run("INSERT INTO a VALUES (?)", String(repeating: "x;", count: index % 50)) }
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("dump.sql")
        try source.dump(to: url)
        let restored = try Connection()
        try restored.restore(fromDumpAt: url)
        #expect(try tableChecksums(restored) == tableChecksums(source))
    }
}
