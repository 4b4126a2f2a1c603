import Foundation
import Strata
import StrataSQift

/// The cars table of SQift's README on an in-memory connection, with its first `count` rows: Audi,
/// Mercedes, Skoda and Volvo.
public func makeSQiftCars(count: Int = 4) throws -> Connection {
    let connection = try Connection(storageLocation: .inMemory)
    try connection.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, type TEXT, price INTEGER)")
    let cars: [(String, String, Int)] = [
        ("Audi", "Sedan", 52_642), ("Mercedes", "Sedan", 57_127), ("Skoda", "Hatchback", 9_000), ("Volvo", "Wagon", 29_000)
    ]
    for (index, car) in cars.prefix(count).enumerated() {
        try connection.run("INSERT INTO cars VALUES(?, ?, ?, ?)", index + 1, car.0, car.1, car.2)
    }
    return connection
}

/// SQift README's `Car`, read from a row of its cars table (name, type, price).
public struct Car: Equatable, Sendable {
    public let name: String
    public let type: String
    public let price: UInt

    public init(name: String, type: String, price: UInt) {
        self.name = name
        self.type = type
        self.price = price
    }
}

// As in SQift's README.
extension Car: ExpressibleByRow {
    public init(row: Row) throws {
        guard
            let name: String = row[0],
            let type: String = row[1],
            let price: UInt = row[2]
        else {
            throw ExpressibleByRowError(type: Car.self, row: row)
        }
        self.init(name: name, type: type, price: price)
    }
}

/// The first lines of SQift README's execute examples, on `connection`: foreign keys on, WAL, and
/// an empty cars table (id, name, price).
public func createReadmeCarsTable(on connection: Connection) throws {
    try connection.execute("PRAGMA foreign_keys = true")
    try connection.execute("PRAGMA journal_mode = WAL")
    try connection.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)")
}

/// The README's two cars after ``createReadmeCarsTable(on:)``: Audi (1) and Mercedes (2).
public func insertReadmeCars(on connection: Connection) throws {
    try connection.execute("INSERT INTO cars VALUES(1, 'Audi', 52642)")
    try connection.execute("INSERT INTO cars VALUES(2, 'Mercedes', 57127)")
}

/// SQift README's scalar function `strip_unicode(text)`: the text converted to ASCII by
/// Foundation's lossy conversion, NULL for any other value.
public func addReadmeStripUnicode(to connection: Connection) throws {
    try connection.addScalarFunction(named: "strip_unicode", argumentCount: 1) { _, values in
        guard let value = values.first, value.isText, let ascii = lossyASCII(value.text) else { return .null }
        return .text(ascii)
    }
}

/// `text` through Foundation's lossy ASCII conversion, as the README's `strip_unicode` does it.
private func lossyASCII(_ text: String) -> String? {
    text.data(using: .ascii, allowLossyConversion: true).flatMap { String(data: $0, encoding: .ascii) }
}
