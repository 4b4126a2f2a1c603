import Foundation
import Strata
import StrataTestSupport

/// The cars table of SQift's README, with its four cars.
func makeCarsConnection() throws -> Connection { try makeSQiftCars(count: 4) }
