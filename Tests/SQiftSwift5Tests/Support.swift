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
