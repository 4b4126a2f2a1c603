import Strata
import StrataSQift
import StrataTestSupport

/// The cars table of SQift's README with its first three cars (Audi, Mercedes, Skoda).
func makeCars() throws -> Connection { try makeSQiftCars(count: 3) }

/// A database file in a temporary directory of its own, opened as the seed README opens one; the
/// directory goes when the returned value does.
func onDiskDatabase() throws -> TemporaryDatabase { try makeOnDiskDatabase() }
