// SQLiteORM-Swift's names over Strata: code written for SQLiteORM ports by changing
// `import SQLiteORM` to `import StrataORM`.
@_exported import Strata
