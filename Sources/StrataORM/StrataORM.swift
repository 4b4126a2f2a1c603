// Module StrataORM: SQLiteORM-Swift's API (`Storage`, `Table<T>`, `Column`, `where_`, ...) over the
// kernel's statement cache, introspection reader and table rebuild.

// SQLiteORM-Swift's names over Strata: code written for SQLiteORM ports by changing
// `import SQLiteORM` to `import StrataORM`.
@_exported import Strata
// SQift's spellings too (`Connection(storageLocation:)`, `executeWrite`): code written for SQLiteORM-Swift
// sat on a SQift-shaped core, and imported beside this module `StrataSQift` would make its names
// ambiguous with this module's (`Database`, `Bindable`).
@_exported import StrataSQift
