// Module StrataSwiftly: SQLite.swiftly's described tables (`TableDescription`, `ColumnDescription`,
// `InsertStatement`, `readAllRows`, ...) over Strata, so code written for SQLite.swiftly ports by
// changing `import SQLite_Swiftly` to `import StrataSwiftly`.

@_exported import Strata
// SQift's spellings too (`Connection(storageLocation:)`, `executeWrite`): code written for SQLite.swiftly
// sat on a SQift-shaped core, and imported beside this module `StrataSQift` would make its names
// ambiguous with this module's (`Database`, `Bindable`).
@_exported import StrataSQift
// SQLite.swiftly's framework header imports UIKit, so its users reach Foundation (`URL`) through
// their one import; re-exported so that code ports as is.
@_exported import Foundation
