// Module StrataORM: SQLiteORM-Swift's API (`Storage`, `Table<T>`, `Column`, `where_`, ...) over the
// kernel's statement cache, introspection reader and table rebuild.

// SQLiteORM-Swift's names over Strata: code written for SQLiteORM ports by changing
// `import SQLiteORM` to `import StrataORM`.
@_exported import Strata
