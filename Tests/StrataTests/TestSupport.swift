import Foundation
import Strata
import StrataTestSupport

/// The cars table of SQift's README.
func makeCarsConnection() throws -> Connection {
    let connection = try Connection(storageLocation: .inMemory)
    try connection.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, type TEXT, price INTEGER)")
    try connection.run("INSERT INTO cars VALUES(?, ?, ?, ?)", 1, "Audi", "Sedan", 52_642)
    try connection.run("INSERT INTO cars VALUES(?, ?, ?, ?)", 2, "Mercedes", "Sedan", 57_127)
    try connection.run("INSERT INTO cars VALUES(?, ?, ?, ?)", 3, "Skoda", "Hatchback", 9_000)
    try connection.run("INSERT INTO cars VALUES(?, ?, ?, ?)", 4, "Volvo", "Wagon", 29_000)
    return connection
}
