// The kernel: the one place for each mechanism (connection and statement handles, the statement
// cache and cursor, the introspection reader, storage classes and value reading, SQL text, the
// pool core, open flags). Everything above calls it; nothing above re-implements it.
//
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
