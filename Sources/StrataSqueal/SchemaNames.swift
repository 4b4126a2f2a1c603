import Strata

// Squeal's names for the schema DSL, introspection and migration types, under the names Squeal
// gave them (`ColumnType` is Squeal's here; SQLite.swiftly's is StrataSwiftly's, not core's).

/// Squeal's `Table`: a table as a schema version declares it.
public typealias Table = SchemaTable
/// Squeal's `Column`: a column as a schema version declares it.
public typealias Column = SchemaColumn
/// Squeal's `ColumnType` (`.Text`, `.Integer`, `.Real`, `.Blob`).
public typealias ColumnType = SchemaColumnType
/// Squeal's `SquealMigrationError`.
public typealias SquealMigrationError = SchemaMigrationError
/// Squeal's `TableBuilder` (the block parameter of `createTable`).
public typealias TableBuilder = SchemaTableBuilder
/// Squeal's `VersionBuilder` (the block parameter of `schema.version`).
public typealias VersionBuilder = SchemaVersionBuilder
/// Squeal's `Version`.
public typealias Version = SchemaVersion
/// Squeal's `SQLiteColumnType` (`.integer`, `.float`, `.text`, `.blob`, `.null`), what
/// `typeOfColumnAtIndex` returns.
public typealias SQLiteColumnType = SQLiteStorageClass
