import Foundation
import StrataSQift
import Strata
import StrataTestSupport

/// The cars table of SQift's README, with its four cars.
func makeCarsConnection() throws -> Connection { try makeSQiftCars(count: 4) }

/// A WAL database file "db" in `directory` with a cars table holding Audi, for the pool tests:
/// returns its path.
func makeWALCarsFile(in directory: TemporaryDirectory) throws -> String {
    let path = directory.path("db")
    let connection = try Connection(storageLocation: .onDisk(path))
    try connection.execute("PRAGMA journal_mode = WAL; CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO cars(name) VALUES('Audi')")
    return path
}
