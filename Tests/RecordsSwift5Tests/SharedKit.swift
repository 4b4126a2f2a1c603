import StrataRecords
import StrataSQift
import StrataTestSupport

/// A database file in a temporary directory of its own, opened as the seed README opens one; the
/// directory goes when the returned value does.
func onDiskDatabase() throws -> TemporaryDatabase { try makeOnDiskDatabase() }
