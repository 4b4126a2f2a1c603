// SQLiteORM-Swift's extension points in Swift 6 mode, as ported code writes them (importing only
// StrataORM): custom column types, constraints as values, built-ins read from an SQLiteValue,
// and numbers a NUMERIC column stores as INTEGER or REAL.
import Foundation
import Testing
import StrataORM

/// Money in cents, stored as INTEGER.
private struct Cents: Bindable, ConstructableFromSQLiteValue, Equatable {
    var value: Int

    init(_ value: Int) { self.value = value }
    init(sqliteValue: SQLiteValue) { value = sqliteValue.integer }
    func bind(to binder: Binder) -> Int32 { binder.bindInt(value: value) }
    static func sqliteTypeName() -> String { "INTEGER" }
}

/// A stock-keeping code, stored as TEXT.
private struct SKU: Bindable, ConstructableFromSQLiteValue, Equatable {
    var code: String

    init(_ code: String) { self.code = code }
    init(sqliteValue: SQLiteValue) { code = sqliteValue.text }
    func bind(to binder: Binder) -> Int32 { binder.bindText(value: code) }
    static func sqliteTypeName() -> String { "TEXT" }
}

private struct Product: Initializable, Equatable {
    var id = 0
    var sku = SKU("")
    var price = Cents(0)
    var salePrice: Cents?
}

/// A shelf keyed by a custom type.
private struct Shelf: Initializable, Equatable {
    var sku = SKU("")
    var count = 0
}

private func productTables() -> [AnyTable] {
    [
        Table<Product>(name: "products", elements: [
            Column(name: "id", keyPath: \Product.id, constraints: primaryKey(), notNull()),
            Column(name: "sku", keyPath: \Product.sku, constraints: notNull(), unique()),
            Column(name: "price", keyPath: \Product.price, constraints: notNull()),
            Column(name: "sale_price", keyPath: \Product.salePrice),
        ]),
        Table<Shelf>(name: "shelves", elements: [
            Column(name: "sku", keyPath: \Shelf.sku, constraints: primaryKey()),
            Column(name: "count", keyPath: \Shelf.count, constraints: notNull()),
        ]),
    ]
}

private func productStorage() throws -> Storage {
    let storage = try Storage(filename: "", tables: productTables())
    try storage.syncSchema(preserve: false)
    return storage
}

/// What an ``SQLiteValue`` answered when a value was built from it.
private struct ValueSnapshot: Bindable, ConstructableFromSQLiteValue {
    var isValid = false, isNull = true, integer = 0, double = 0.0, text = ""

    init(sqliteValue: SQLiteValue) {
        isValid = sqliteValue.isValid
        isNull = sqliteValue.isNull
        integer = sqliteValue.integer
        double = sqliteValue.double
        text = sqliteValue.text
    }
    init() {}
    func bind(to binder: Binder) -> Int32 { binder.bindText(value: text) }
    static func sqliteTypeName() -> String { "TEXT" }
}

private struct Sample: Initializable {
    var id = 0
    var snapshot = ValueSnapshot()
}

/// A value of our own, as a custom type's tests would mock one.
private final class MockValue: SQLiteValue {
    var isValid = true
    var isNull = false
    var integer = 0
    var double = 0.0
    var text = ""
}

@Suite struct CustomColumnTypeTests {
    @Test func customTypesRoundTripAndFilterThroughSQLite() throws {
        let storage = try productStorage()
        let tea = Product(id: 1, sku: SKU("T-1"), price: Cents(350), salePrice: nil)
        let cake = Product(id: 2, sku: SKU("C-2"), price: Cents(525), salePrice: Cents(400))
        let jam = Product(id: 3, sku: SKU("J-3"), price: Cents(199), salePrice: Cents(150))
        for product in [tea, cake, jam] { try storage.replace(product) }

        let all: [Product] = try storage.getAll(orderBy(\Product.id))
        #expect(all == [tea, cake, jam])
        // Stored as the storage classes they bind, under the column types they name.
        let stored: [String] = try storage.connection.query("SELECT typeof(sku) || ' ' || typeof(price) || ' ' || typeof(sale_price) FROM products ORDER BY id")
        #expect(stored == ["text integer null", "text integer integer", "text integer integer"])
        let sql: String? = try storage.connection.query("SELECT sql FROM sqlite_master WHERE name = 'products'")
        let definition = try #require(sql)
        #expect(definition.contains("\"sku\" TEXT NOT NULL UNIQUE") && definition.contains("\"price\" INTEGER NOT NULL"))
        #expect(definition.contains("\"sale_price\" INTEGER") && !definition.contains("\"sale_price\" INTEGER NOT NULL"))

        // In conditions, the custom value is a bound parameter.
        let exact: [Product] = try storage.getAll(where_(\Product.price == Cents(525)))
        #expect(exact == [cake])
        let bySKU: [Product] = try storage.getAll(where_(\Product.sku == SKU("J-3")))
        #expect(bySKU == [jam])
        let quoted: [Product] = try storage.getAll(where_(\Product.sku == SKU("T-1' OR '1'='1")))
        #expect(quoted.isEmpty)
        let cheap: [Product] = try storage.getAll(where_(\Product.price < Cents(400) && \Product.salePrice != nil))
        #expect(cheap == [jam])
        let notCake: [Product] = try storage.getAll(where_(\Product.price != Cents(525)), orderBy(\Product.id))
        #expect(notCake.map(\.id) == [1, 3])
        #expect(try storage.count(all: Product.self, where_(\Product.price >= Cents(350))) == 2)
        #expect(try storage.count(all: Product.self, where_(\Product.price <= Cents(350))) == 2)
        #expect(try storage.count(all: Product.self, where_(\Product.price > Cents(350))) == 1)
        #expect(try storage.count(all: Product.self, where_(\Product.salePrice == nil)) == 1)

        // Updates: by object, and by assignment.
        var changed = tea
        changed.salePrice = Cents(300)
        try storage.update(changed)
        #expect(try storage.get(id: 1) == changed)
        try storage.update(all: Product.self, set(assign(\Product.price, Cents(999))), where_(\Product.sku == SKU("C-2")))
        let updated: Product? = try storage.get(id: 2)
        #expect(updated?.price == Cents(999))
    }

    @Test func customTypesAsKeysAndInSelectsAndAggregates() throws {
        let safe = try SafeStorage(filename: "", tables: productTables())
        _ = try safe.syncSchema(preserve: false).get()
        let storage = safe.storage
        try storage.replace(Product(id: 1, sku: SKU("A"), price: Cents(10), salePrice: nil))
        try storage.replace(Product(id: 2, sku: SKU("B"), price: Cents(30), salePrice: Cents(20)))
        let prices: [Cents] = try storage.select(\Product.price, orderBy(\Product.id))
        #expect(prices == [Cents(10), Cents(30)])
        let sales: [Cents?] = try storage.select(\Product.salePrice, orderBy(\Product.id))
        #expect(sales == [nil, Cents(20)])
        #expect(try storage.max(\Product.price) == Cents(30))
        #expect(try storage.min(\Product.price) == Cents(10))
        #expect(try storage.min(\Product.salePrice) == Cents(20))
        #expect(try storage.max(\Product.salePrice, where_(\Product.id == 1)) == nil)
        #expect(try safe.max(\Product.price).get() == Cents(30))
        #expect(try safe.min(\Product.salePrice).get() == Cents(20))
        #expect(try safe.select(\Product.sku, where_(\Product.id == 1)).get() == [SKU("A")])
        // SQLiteORM-Swift's Bindable values as primary key values.
        try storage.replace(Shelf(sku: SKU("A"), count: 3))
        try storage.replace(Shelf(sku: SKU("B"), count: 5))
        let shelf: Shelf? = try storage.get(id: SKU("B"))
        #expect(shelf == Shelf(sku: SKU("B"), count: 5))
        let none: Shelf? = try storage.get(id: SKU("Z"))
        #expect(none == nil)
        #expect(try safe.get(of: Shelf.self, id: SKU("A")).get() == Shelf(sku: SKU("A"), count: 3))
        let viaResult: Result<Shelf?, ORMError> = safe.get(id: SKU("A"))
        #expect(try viaResult.get()?.count == 3)
        #expect(try safe.get(of: Product.self, id: 2).get()?.sku == SKU("B"))
        #expect(throws: ORMError.primaryKeyCountMismatch(table: "shelves", expected: 1, received: 2)) {
            let _: Shelf? = try storage.get(id: SKU("A"), SKU("B"))
        }
    }

    @Test func nullInANonOptionalCustomColumnThrows() throws {
        let storage = try Storage(filename: "", tables: [
            Table<Product>(name: "products", elements: [
                Column(name: "id", keyPath: \Product.id, constraints: primaryKey()),
                Column(name: "sku", keyPath: \Product.sku),
                Column(name: "price", keyPath: \Product.price),
            ]),
        ])
        try storage.syncSchema(preserve: false)
        try storage.connection.execute("INSERT INTO products (id, sku, price) VALUES (1, 'A', NULL)")
        #expect(throws: ORMError.valueDoesNotConvert(table: "products", column: "price", type: "Cents")) {
            let _: [Product] = try storage.getAll()
        }
        #expect(throws: ORMError.valueDoesNotConvert(table: "result", column: "price", type: "Cents")) {
            let _: [Cents] = try storage.select(\Product.price)
        }
    }

    @Test func strataReadsAColumnAsAnSQLiteValueWithSQLiteConversions() throws {
        let storage = try Storage(filename: "", Table<Sample>(name: "samples",
                                                              Column(name: "id", keyPath: \Sample.id, constraints: primaryKey()),
                                                              Column(name: "snapshot", keyPath: \Sample.snapshot)))
        try storage.syncSchema(preserve: false)
        try storage.connection.execute("INSERT INTO samples VALUES (1, '42.5'), (2, 7), (3, 2.75), (4, x'6869')")
        let samples: [Sample] = try storage.getAll(orderBy(\Sample.id))
        let snapshots = samples.map(\.snapshot)
        try #require(snapshots.count == 4)
        #expect(snapshots.allSatisfy { $0.isValid && !$0.isNull })
        // TEXT '42.5': SQLite reads its leading integer and its number.
        #expect(snapshots[0].integer == 42 && snapshots[0].double == 42.5 && snapshots[0].text == "42.5")
        // INTEGER 7 (stored as TEXT by the column's affinity, read back the same way).
        #expect(snapshots[1].integer == 7 && snapshots[1].double == 7 && snapshots[1].text == "7")
        #expect(snapshots[2].integer == 2 && snapshots[2].double == 2.75 && snapshots[2].text == "2.75")
        // A BLOB's bytes as text.
        #expect(snapshots[3].text == "hi" && snapshots[3].integer == 0)
    }
}

@Suite struct ColumnConstraintTests {
    static let orders: [Order?] = [nil, .asc, .desc]
    static let clauses: [ConflictClause?] = [nil, .rollback, .abort, .fail, .ignore, .replace]

    /// `primaryKey()` chained as written in code: order, then conflict clause, then autoincrement.
    private func primaryKeyChain(_ order: Order?, _ clause: ConflictClause?, _ autoincrement: Bool) -> ConstraintBuilder {
        func choose(_ choices: PrimaryKeyBuilder.OnConflictClauseBuilder, _ clause: ConflictClause) -> PrimaryKeyWithConflictClauseBuilder {
            switch clause {
            case .rollback: return choices.rollback()
            case .abort: return choices.abort()
            case .fail: return choices.fail()
            case .ignore: return choices.ignore()
            case .replace: return choices.replace()
            }
        }
        if let clause {
            let choices = switch order {
            case nil: primaryKey().onConflict()
            case .asc: primaryKey().asc().onConflict()
            case .desc: primaryKey().desc().onConflict()
            }
            let withClause = choose(choices, clause)
            return autoincrement ? withClause.autoincrement() : withClause
        }
        switch (order, autoincrement) {
        case (nil, false): return primaryKey()
        case (nil, true): return primaryKey().autoincrement()
        case (.asc, false): return primaryKey().asc()
        case (.asc, true): return primaryKey().asc().autoincrement()
        case (.desc, false): return primaryKey().desc()
        case (.desc, true): return primaryKey().desc().autoincrement()
        }
    }

    @Test func everyPrimaryKeyChainGivesItsCase() {
        var built: [ColumnConstraint] = []
        for order in Self.orders {
            for clause in Self.clauses {
                for autoincrement in [false, true] {
                    let constraint = primaryKeyChain(order, clause, autoincrement).constraint
                    #expect(constraint == .primaryKey(order: order, conflictClause: clause, autoincrement: autoincrement))
                    built.append(constraint)
                }
            }
        }
        // 36 different constraints: each equals itself only.
        for (i, lhs) in built.enumerated() {
            for (j, rhs) in built.enumerated() { #expect((lhs == rhs) == (i == j)) }
        }
    }

    @Test func notNullAndUniqueWithEveryConflictClause() {
        let notNulls: [ConstraintBuilder] = [notNull(), notNull().onConflict().rollback(), notNull().onConflict().abort(),
                                             notNull().onConflict().fail(), notNull().onConflict().ignore(), notNull().onConflict().replace()]
        let uniques: [ConstraintBuilder] = [unique(), unique().onConflict().rollback(), unique().onConflict().abort(),
                                            unique().onConflict().fail(), unique().onConflict().ignore(), unique().onConflict().replace()]
        #expect(notNulls.map(\.constraint) == Self.clauses.map { .notNull(conflictClause: $0) })
        #expect(uniques.map(\.constraint) == Self.clauses.map { .unique(conflictClause: $0) })
        // Different cases never compare equal, whatever they carry.
        #expect(ColumnConstraint.notNull(conflictClause: nil) != .unique(conflictClause: nil))
        #expect(ColumnConstraint.notNull(conflictClause: .abort) != .notNull(conflictClause: .fail))
        #expect(ColumnConstraint.unique(conflictClause: .replace) != .primaryKey(order: nil, conflictClause: .replace, autoincrement: false))
        #expect(Order.asc != .desc && ConflictClause.abort != .ignore)
    }

    @Test func constraintsReachTheTableDefinition() throws {
        struct Code: Initializable { var id = 0; var code = ""; var label = "" }
        let storage = try Storage(filename: "", Table<Code>(name: "codes",
            Column(name: "id", keyPath: \Code.id, constraints: primaryKey().asc().onConflict().replace().autoincrement()),
            Column(name: "code", keyPath: \Code.code, constraints: notNull().onConflict().fail(), unique().onConflict().ignore()),
            Column(name: "label", keyPath: \Code.label, constraints: unique())))
        try storage.syncSchema(preserve: false)
        let sql: String? = try storage.connection.query("SELECT sql FROM sqlite_master WHERE name = 'codes'")
        let definition = try #require(sql)
        #expect(definition.contains("\"id\" INTEGER PRIMARY KEY ASC ON CONFLICT REPLACE AUTOINCREMENT"))
        #expect(definition.contains("\"code\" TEXT NOT NULL ON CONFLICT FAIL UNIQUE ON CONFLICT IGNORE"))
        #expect(definition.contains("\"label\" TEXT UNIQUE"))
        // UNIQUE ... ON CONFLICT IGNORE: the second row with the same code is skipped.
        try storage.insert(Code(id: 0, code: "a", label: "x"))
        try storage.insert(Code(id: 0, code: "a", label: "y"))
        #expect(try storage.count(all: Code.self) == 1)
    }
}

@Suite struct ConstructableFromSQLiteValueTests {
    @Test func integersReadTheValuesInteger() {
        let value = MockValue()
        for integer in [0, 1, -5, 500, Int.max, Int.min] {
            value.integer = integer
            #expect(Int(sqliteValue: value) == integer)
            #expect(Int64(sqliteValue: value) == Int64(integer))
        }
        for integer in [0, 1, 500, Int.max] {
            value.integer = integer
            #expect(UInt(sqliteValue: value) == UInt(integer))
            #expect(UInt64(sqliteValue: value) == UInt64(integer))
        }
        // Unsigned values are stored by bit pattern, so a negative integer reads back, never traps.
        value.integer = -1
        #expect(UInt(sqliteValue: value) == .max && UInt64(sqliteValue: value) == .max)
    }

    @Test func floatingPointTextAndBool() {
        let value = MockValue()
        for double in [0, 1.5, -500, 3.141592654, .greatestFiniteMagnitude] {
            value.double = double
            #expect(Double(sqliteValue: value) == double)
            #expect(Float(sqliteValue: value) == Float(double))
        }
        for text in ["", "Inna", "naïve ☕︎", "a\u{0}b"] {
            value.text = text
            #expect(String(sqliteValue: value) == text)
        }
        for (integer, expected) in [(0, false), (1, true), (-3, true), (2, true)] {
            value.integer = integer
            #expect(Bool(sqliteValue: value) == expected)
        }
    }

    @Test func optionalsAreNilForNullOnly() {
        let value = MockValue()
        value.integer = 7
        value.double = 7.5
        value.text = "seven"
        value.isNull = false
        #expect(Optional<Int>(sqliteValue: value) == 7 && Optional<Int64>(sqliteValue: value) == 7)
        #expect(Optional<UInt>(sqliteValue: value) == 7 && Optional<UInt64>(sqliteValue: value) == 7)
        #expect(Optional<Double>(sqliteValue: value) == 7.5 && Optional<Float>(sqliteValue: value) == 7.5)
        #expect(Optional<String>(sqliteValue: value) == "seven" && Optional<Bool>(sqliteValue: value) == true)
        value.isNull = true
        #expect(Optional<Int>(sqliteValue: value) == nil && Optional<Int64>(sqliteValue: value) == nil)
        #expect(Optional<UInt>(sqliteValue: value) == nil && Optional<UInt64>(sqliteValue: value) == nil)
        #expect(Optional<Double>(sqliteValue: value) == nil && Optional<Float>(sqliteValue: value) == nil)
        #expect(Optional<String>(sqliteValue: value) == nil && Optional<Bool>(sqliteValue: value) == nil)
        #expect(Optional<Cents>(sqliteValue: value) == nil)
        value.isNull = false
        #expect(Optional<Cents>(sqliteValue: value) == Cents(7))
    }
}

// MARK: - NUMERIC columns

private struct Payment: Initializable, Equatable {
    var id = 0
    var amount = 0.0
    var fee: Double?
    var weight: Float = 0
}

private func paymentStorage(_ rows: String) throws -> Storage {
    let storage = try Storage(filename: "", Table<Payment>(name: "payments",
                                                           Column(name: "id", keyPath: \Payment.id, constraints: primaryKey()),
                                                           Column(name: "amount", keyPath: \Payment.amount),
                                                           Column(name: "fee", keyPath: \Payment.fee),
                                                           Column(name: "weight", keyPath: \Payment.weight)))
    // As other tools declare money: NUMERIC stores 32.00 as INTEGER 32 and 16.75 as REAL.
    try storage.connection.execute("CREATE TABLE payments (id INTEGER PRIMARY KEY, amount NUMERIC, fee DECIMAL(10,2), weight NUMERIC)")
    try storage.connection.execute("INSERT INTO payments VALUES \(rows)")
    return storage
}

@Suite struct NumericColumnTests {
    @Test func integerAndRealStorageReadAsDouble() throws {
        let storage = try paymentStorage("(1, 32.00, 32.00, 2), (2, 16.75, 16.75, 0.5), (3, -7, NULL, 0)")
        let classes: [String] = try storage.connection.query("SELECT typeof(amount) FROM payments ORDER BY id")
        #expect(classes == ["integer", "real", "integer"])
        let payments: [Payment] = try storage.getAll(orderBy(\Payment.id))
        #expect(payments == [Payment(id: 1, amount: 32.0, fee: 32.0, weight: 2),
                             Payment(id: 2, amount: 16.75, fee: 16.75, weight: 0.5),
                             Payment(id: 3, amount: -7, fee: nil, weight: 0)])
        #expect(try storage.get(id: 1) == payments[0])
        #expect(try storage.select(\Payment.amount, orderBy(\Payment.id)) == [32.0, 16.75, -7])
        #expect(try storage.select(\Payment.fee, orderBy(\Payment.id)) == [32.0, 16.75, nil])
        #expect(try storage.max(\Payment.amount) == 32.0)
        var seen: [Double] = []
        try storage.forEach(Payment.self, where_(\Payment.amount > 0.0)) { seen.append($0.amount) }
        #expect(seen.sorted() == [16.75, 32.0])
        // What the ORM writes comes back the same way: 8.0 is stored as INTEGER 8.
        try storage.replace(Payment(id: 4, amount: 8.0, fee: 0.25, weight: 1))
        let stored: String? = try storage.connection.query("SELECT typeof(amount) FROM payments WHERE id = 4")
        #expect(stored == "integer")
        #expect(try storage.get(id: 4) == Payment(id: 4, amount: 8, fee: 0.25, weight: 1))
    }

    @Test func nullInANonOptionalDoubleThrowsANamedError() throws {
        let storage = try paymentStorage("(1, 32.00, NULL, 1), (2, NULL, 16.75, 1)")
        let expected = ORMError.valueDoesNotConvert(table: "payments", column: "amount", type: "Double")
        let error = #expect(throws: ORMError.self) { let _: [Payment] = try storage.getAll() }
        #expect(error == expected)
        #expect(error?.description.contains("Column 'amount' of table 'payments' holds NULL") == true)
        #expect(error?.description.contains("make the property optional") == true)
        #expect(throws: expected) { let _: Payment? = try storage.get(id: 2) }
        // The row that holds a number reads.
        #expect(try storage.get(id: 1) == Payment(id: 1, amount: 32, fee: nil, weight: 1))
    }
}
