// This file names SQLite's C handle types, so every signature says which pointer it takes.

/// A `sqlite3 *`: one open database connection.
public typealias SQLiteConnectionHandle = OpaquePointer
/// A `sqlite3_stmt *`: one compiled statement.
public typealias SQLiteStatementHandle = OpaquePointer
/// A `sqlite3_value *`: one column value of the current row, or one function argument.
public typealias SQLiteValueHandle = OpaquePointer
/// A `sqlite3_context *`: the call of a SQL function being evaluated.
public typealias SQLiteContextHandle = OpaquePointer
/// A `sqlite3_backup *`: one online backup in progress.
public typealias SQLiteBackupHandle = OpaquePointer
