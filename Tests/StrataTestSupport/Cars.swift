import Strata

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
