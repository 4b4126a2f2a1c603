// Module StrataSwiftly: SQLite.swiftly's described tables (`TableDescription`, `ColumnDescription`,
// `InsertStatement`, `readAllRows`, ...) over Strata, so code written for SQLite.swiftly ports by
// changing `import SQLite_Swiftly` to `import StrataSwiftly`.

@_exported import Strata
// SQLite.swiftly's framework header imports UIKit, so its users reach Foundation (`URL`) through
// their one import; re-exported so that code ports as is.
@_exported import Foundation
