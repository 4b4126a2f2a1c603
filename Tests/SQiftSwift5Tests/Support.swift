import Foundation
import Strata

struct Car: Equatable {
    let name: String
    let type: String
    let price: UInt
}

// As in SQift's README.
extension Car: ExpressibleByRow {
    init(row: Row) throws {
        guard
            let name: String = row[0],
            let type: String = row[1],
            let price: UInt = row[2]
        else {
            throw ExpressibleByRowError(type: Car.self, row: row)
        }

        self.name = name
        self.type = type
        self.price = price
    }
}

func makeCars() throws -> Connection {
    let db = try Connection(storageLocation: .inMemory)
    try db.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, type TEXT, price INTEGER)")
    try db.run("INSERT INTO cars VALUES(?, ?, ?, ?)", 1, "Audi", "Sedan", 52_642)
    try db.run("INSERT INTO cars VALUES(?, ?, ?, ?)", 2, "Mercedes", "Sedan", 57_127)
    try db.run("INSERT INTO cars VALUES(?, ?, ?, ?)", 3, "Skoda", "Hatchback", 9_000)
    return db
}
