import Foundation
import StrataSQift
import GRDB
import SQLite3
import Strata
import StrataORM
import StrataRecords

// Northwind's `Orders` as Lighter's Northwind suite has it (its enlarged database: the 830 orders
// of the sample and about 15,600 generated ones): 14 columns, an integer key, dates stored as text,
// mostly optional text. Unlike the other rows, each contender reads the table ten times in a row
// per round (as XCTest's `measure` does), so what one fetch leaves in the allocator and the caches
// is what the next one meets: a wall-clock gap with equal instruction counts hides there.

@Record(table: "Orders")
struct NorthwindOrder {
    @PrimaryKey @Column("OrderID") var id: Int64?
    @Column("CustomerID") var customerID: String?
    @Column("EmployeeID") var employeeID: Int64?
    @Column("OrderDate") var orderDate: String?
    @Column("RequiredDate") var requiredDate: String?
    @Column("ShippedDate") var shippedDate: String?
    @Column("ShipVia") var shipVia: Int64?
    @Column("Freight") var freight: Double?
    @Column("ShipName") var shipName: String?
    @Column("ShipAddress") var shipAddress: String?
    @Column("ShipCity") var shipCity: String?
    @Column("ShipRegion") var shipRegion: String?
    @Column("ShipPostalCode") var shipPostalCode: String?
    @Column("ShipCountry") var shipCountry: String?

    var checksum: Int64 {
        // No array per row: the checksum must not cost more than the fetch it checks.
        func length(_ text: String?) -> Int64 { Int64(text?.utf8.count ?? 0) }
        var sum = (id ?? 0) &+ (employeeID ?? 0) &* 3 &+ (shipVia ?? 0) &* 5 &+ Int64(((freight ?? -1) * 100).rounded())
        sum &+= length(customerID) &* 7 &+ length(orderDate) &* 8 &+ length(requiredDate) &* 9 &+ length(shippedDate) &* 10
        sum &+= length(shipName) &* 11 &+ length(shipAddress) &* 12 &+ length(shipCity) &* 13 &+ length(shipRegion) &* 14
        return sum &+ length(shipPostalCode) &* 15 &+ length(shipCountry) &* 16
    }
}

/// The same order for the ORM, which sets properties by key path on a default value.
struct NorthwindORMOrder: Initializable {
    var id = 0
    var customerID: String?
    var employeeID: Int?
    var orderDate: String?
    var requiredDate: String?
    var shippedDate: String?
    var shipVia: Int?
    var freight: Double?
    var shipName: String?
    var shipAddress: String?
    var shipCity: String?
    var shipRegion: String?
    var shipPostalCode: String?
    var shipCountry: String?

    var order: NorthwindOrder {
        NorthwindOrder(
            id: Int64(id), customerID: customerID, employeeID: employeeID.map(Int64.init), orderDate: orderDate,
            requiredDate: requiredDate, shippedDate: shippedDate, shipVia: shipVia.map(Int64.init), freight: freight,
            shipName: shipName, shipAddress: shipAddress, shipCity: shipCity, shipRegion: shipRegion,
            shipPostalCode: shipPostalCode, shipCountry: shipCountry)
    }
}

/// Strata's hand-written mapping: reads by index.
struct HandNorthwindOrder: ExpressibleByRow {
    let value: NorthwindOrder
    init(row: Strata.Row) throws {
        value = NorthwindOrder(
            id: row[0], customerID: row[1], employeeID: row[2], orderDate: row[3], requiredDate: row[4],
            shippedDate: row[5], shipVia: row[6], freight: row[7], shipName: row[8], shipAddress: row[9],
            shipCity: row[10], shipRegion: row[11], shipPostalCode: row[12], shipCountry: row[13])
    }
}

/// GRDB's hand-written record, by index.
struct GRDBNorthwindOrder: FetchableRecord {
    let value: NorthwindOrder
    init(row: GRDB.Row) throws {
        value = NorthwindOrder(
            id: row[0], customerID: row[1], employeeID: row[2], orderDate: row[3], requiredDate: row[4],
            shippedDate: row[5], shipVia: row[6], freight: row[7], shipName: row[8], shipAddress: row[9],
            shipCity: row[10], shipRegion: row[11], shipPostalCode: row[12], shipCountry: row[13])
    }
}

enum NorthwindWorkloads {
    static let name = "northwind-orders"
    /// The order count of Lighter's enlarged Northwind database.
    static let defaultRows = 16_484
    /// Fetches per contender per round.
    static let fetchesPerRound = 10

    static let createSQL = """
        CREATE TABLE [Orders](
           [OrderID]INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
           [CustomerID]TEXT,
           [EmployeeID]INTEGER,
           [OrderDate]DATETIME,
           [RequiredDate]DATETIME,
           [ShippedDate]DATETIME,
           [ShipVia]INTEGER,
           [Freight]NUMERIC DEFAULT 0,
           [ShipName]TEXT,
           [ShipAddress]TEXT,
           [ShipCity]TEXT,
           [ShipRegion]TEXT,
           [ShipPostalCode]TEXT,
           [ShipCountry]TEXT)
        """
    static let columns = [
        "OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia",
        "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry"
    ]
    static let selectSQL = "SELECT " + columns.map { "\"\($0)\"" }.joined(separator: ", ") + " FROM \"Orders\""

    /// A deterministic stand-in for the sample's shipping addresses: about a third have no region,
    /// a few no postal code, as in Northwind.
    static func location(_ index: Int) -> [String?] {
        let cities = [
            "Reims", "Münster", "Rio de Janeiro", "Lyon", "Charleroi", "Bern", "Genève", "Resende", "San Cristóbal",
            "Graz", "México D.F.", "Köln", "Albuquerque", "Bräcke", "Strasbourg", "Boise", "London", "Cunewalde"
        ]
        let countries = [
            "France", "Germany", "Brazil", "Belgium", "Switzerland", "Venezuela", "Austria", "Mexico", "USA",
            "Sweden", "UK"
        ]
        let regions: [String?] = [nil, "RJ", "SP", nil, "NM", "Táchira", nil, "ID", nil, "WA", "Lara", nil]
        return [
            "Shipping Partner Nr. \(index) & Söhne", "\(index * 7 % 400) Rue de l'Abbaye", cities[index % cities.count],
            regions[index % regions.count], index % 23 == 0 ? nil : "\(10_000 + index * 379 % 89_999)",
            countries[index % countries.count]
        ]
    }

    static func populate(path: String, rows: Int) throws {
        let db = try Raw.open(path)
        defer { sqlite3_close_v2(db) }
        try Raw.exec(db, createSQL + ";BEGIN")
        let insert = try Raw.prepare(
            db,
            """
            INSERT INTO [Orders] (CustomerID, EmployeeID, OrderDate, RequiredDate, ShippedDate, ShipVia, Freight, ShipName,
              ShipAddress, ShipCity, ShipRegion, ShipPostalCode, ShipCountry) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        defer { sqlite3_finalize(insert) }
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        func date(_ seconds: Int) -> String {
            let day = Date(timeIntervalSince1970: 1_341_878_400 + Double(seconds)) // from 2012-07-10
            var time = time_t(day.timeIntervalSince1970)
            var parts = tm()
            gmtime_r(&time, &parts)
            return String(
                format: "%04d-%02d-%02d %02d:%02d:%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                parts.tm_hour, parts.tm_min, parts.tm_sec)
        }
        for row in 0..<rows {
            let customer = (0..<5).map { _ in Character(Unicode.Scalar(UInt8(65 + next(26)))) }
            let ordered = next(400_000_000)
            let values: [String?] = [
                String(customer), nil, date(ordered), date(ordered + 86_400 * (14 + next(46))),
                row % 40 == 0 ? nil : date(ordered + 86_400 * (1 + next(29)))
            ]
            for (offset, value) in values.enumerated() {
                if offset == 1 { sqlite3_bind_int64(insert, 2, Int64(1 + next(9))); continue }
                if let value {
                    sqlite3_bind_text(insert, Int32(offset + 1), value, -1, Raw.transient)
                } else {
                    sqlite3_bind_null(insert, Int32(offset + 1))
                }
            }
            sqlite3_bind_int64(insert, 6, Int64(1 + next(3)))
            // The sample's 830 orders have a freight; the generated ones 0 (NUMERIC: stored as an integer).
            if row < 830 { sqlite3_bind_double(insert, 7, Double(next(100_000)) / 100) } else { sqlite3_bind_double(insert, 7, 0) }
            for (offset, value) in location(next(89)).enumerated() {
                if let value {
                    sqlite3_bind_text(insert, Int32(offset + 8), value, -1, Raw.transient)
                } else {
                    sqlite3_bind_null(insert, Int32(offset + 8))
                }
            }
            guard sqlite3_step(insert) == SQLITE_DONE else { throw BenchError.sqlite(String(cString: sqlite3_errmsg(db))) }
            sqlite3_reset(insert)
        }
        try Raw.exec(db, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE)")
    }

    struct Contestant {
        let name: String
        /// Opens the database; returns one fetch of the whole table and the close.
        let make: (_ path: String) throws -> Prepared
    }

    static func contestants() -> [Contestant] {
        [
            Contestant(name: "raw") { path in
                let db = try Raw.open(path)
                return Prepared(work: { try rawFetchAll(db) }, close: { sqlite3_close_v2(db) })
            },
            Contestant(name: "@Record") { path in
                let db = try Connection(storageLocation: .onDisk(path))
                try db.execute(Workloads.pragmas)
                return Prepared(work: { try recordFetchAll(db) }, close: {})
            },
            Contestant(name: "hand-written") { path in
                let db = try Connection(storageLocation: .onDisk(path))
                try db.execute(Workloads.pragmas)
                return Prepared(work: { try handFetchAll(db) }, close: {})
            },
            Contestant(name: "orm") { path in
                let storage = try Storage(
                    filename: path,
                    Table<NorthwindORMOrder>(
                        name: "Orders",
                        Column(name: "OrderID", keyPath: \NorthwindORMOrder.id, constraints: primaryKey(), notNull()),
                        Column(name: "CustomerID", keyPath: \NorthwindORMOrder.customerID),
                        Column(name: "EmployeeID", keyPath: \NorthwindORMOrder.employeeID),
                        Column(name: "OrderDate", keyPath: \NorthwindORMOrder.orderDate),
                        Column(name: "RequiredDate", keyPath: \NorthwindORMOrder.requiredDate),
                        Column(name: "ShippedDate", keyPath: \NorthwindORMOrder.shippedDate),
                        Column(name: "ShipVia", keyPath: \NorthwindORMOrder.shipVia),
                        Column(name: "Freight", keyPath: \NorthwindORMOrder.freight),
                        Column(name: "ShipName", keyPath: \NorthwindORMOrder.shipName),
                        Column(name: "ShipAddress", keyPath: \NorthwindORMOrder.shipAddress),
                        Column(name: "ShipCity", keyPath: \NorthwindORMOrder.shipCity),
                        Column(name: "ShipRegion", keyPath: \NorthwindORMOrder.shipRegion),
                        Column(name: "ShipPostalCode", keyPath: \NorthwindORMOrder.shipPostalCode),
                        Column(name: "ShipCountry", keyPath: \NorthwindORMOrder.shipCountry)))
                try storage.connection.execute(Workloads.pragmas)
                return Prepared(work: { try ormFetchAll(storage) }, close: {})
            },
            Contestant(name: "grdb") { path in
                let queue = try RecordWorkloads.grdbQueue(path)
                return Prepared(work: { try queue.read { try grdbFetchAll($0) } }, close: {})
            }
        ]
    }

    // MARK: - Contenders (each function's name is what callgrind counts)

    @inline(never) static func rawFetchAll(_ db: OpaquePointer) throws -> Int64 {
        let statement = try Raw.prepare(db, selectSQL)
        defer { sqlite3_finalize(statement) }
        func int(_ index: Int32) -> Int64? {
            sqlite3_column_type(statement, index) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, index)
        }
        func text(_ index: Int32) -> String? { QueryWorkloads.optionalText(statement, index) }
        var orders: [NorthwindOrder] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            orders.append(
                NorthwindOrder(
                    id: sqlite3_column_int64(statement, 0), customerID: text(1), employeeID: int(2), orderDate: text(3),
                    requiredDate: text(4), shippedDate: text(5), shipVia: int(6),
                    freight: sqlite3_column_type(statement, 7) == SQLITE_NULL ? nil : sqlite3_column_double(statement, 7),
                    shipName: text(8), shipAddress: text(9), shipCity: text(10), shipRegion: text(11), shipPostalCode: text(12),
                    shipCountry: text(13)))
        }
        return orders.reduce(0) { $0 &+ $1.checksum }
    }

    @inline(never) static func recordFetchAll(_ db: Connection) throws -> Int64 {
        try NorthwindOrder.fetchAll(db).reduce(0) { $0 &+ $1.checksum }
    }

    @inline(never) static func handFetchAll(_ db: Connection) throws -> Int64 {
        let orders: [HandNorthwindOrder] = try db.query(selectSQL)
        return orders.reduce(0) { $0 &+ $1.value.checksum }
    }

    @inline(never) static func ormFetchAll(_ storage: Storage) throws -> Int64 {
        let orders: [NorthwindORMOrder] = try storage.getAll()
        return orders.reduce(0) { $0 &+ $1.order.checksum }
    }

    @inline(never) static func grdbFetchAll(_ db: GRDB.Database) throws -> Int64 {
        try GRDBNorthwindOrder.fetchAll(db, sql: selectSQL).reduce(0) { $0 &+ $1.value.checksum }
    }

    /// Each contender fetches the table `fetchesPerRound` times in a row per round, rounds
    /// interleaved; every fetch is one sample (the warm-up round's are dropped).
    @MainActor static func measureAll() throws -> [Result] {
        guard options.filter == nil || name.contains(options.filter!) else { return [] }
        if !options.json { FileHandle.standardError.write(Data("running \(name)...\n".utf8)) }
        let rows = options.rows ?? defaultRows
        let path = directory.appendingPathComponent("\(name).sqlite").path
        try populate(path: path, rows: rows)
        let contestants = contestants()
        var measurements = Array(repeating: Measurement(), count: contestants.count)
        var expected: Int64?
        for round in 0...options.runs {
            for (index, contestant) in contestants.enumerated() {
                let prepared = try contestant.make(path)
                defer { prepared.close() }
                for _ in 0..<fetchesPerRound {
                    let start = DispatchTime.now().uptimeNanoseconds
                    let result = try prepared.work()
                    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
                    if let expected, expected != result {
                        throw BenchError.mismatch("\(name): \(contestant.name) computed \(result), expected \(expected)")
                    }
                    expected = result
                    if round > 0 { measurements[index].times.append(elapsed) }
                }
            }
        }
        return [
            Result(workload: "\(name) (@Record)", rows: rows, raw: measurements[0], strata: measurements[1], grdb: measurements[4]),
            Result(workload: "\(name) (Strata hand-written)", rows: rows, raw: measurements[0], strata: measurements[2], grdb: measurements[4]),
            Result(workload: "\(name) (StrataORM)", rows: rows, raw: measurements[0], strata: measurements[3], grdb: measurements[4])
        ]
    }
}
