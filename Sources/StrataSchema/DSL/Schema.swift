// Schema: the versioned schema DSL (Squeal's, under core names), introspection values,
// migrating up and down, and the one table rebuild. This folder holds the DSL's declarations.

import StrataKernel
import Foundation

/// A database schema declared version by version (Squeal's `Schema`), which migrates a database
/// up or down to any declared version.
///
/// ```swift
/// let AppSchema = Schema(identifier: "contacts") { schema in
///     schema.version(1) { v1 in
///         v1.createTable("contacts") { contacts in
///             contacts.primaryKey("id")
///             contacts.column("name", type: .Text)
///         }
///     }
///     schema.version(2) { v2 in
///         v2.alterTable("contacts") { contacts in contacts.addColumn("url", type: .Text) }
///     }
/// }
/// try AppSchema.migrate(db)                // to version 2
/// try AppSchema.migrate(db, toVersion: 1)  // back down: "url" is removed by a table rebuild
/// ```
/// Declaring is not failable (as in Squeal): a declaration error, such as altering a table no
/// version created, is thrown by ``migrate(_:toVersion:options:)``.
public final class Schema: Sendable {
    /// An optional name for the schema.
    public let identifier: String?
    /// The declared versions, in increasing order.
    public let versions: [SchemaVersion]
    /// Why the declaration cannot be used, if it cannot.
    let declarationError: SchemaMigrationError?

    /// Declares a schema with the versions `block` adds.
    public init(identifier: String? = nil, block: (SchemaBuilder) -> Void) {
        self.identifier = identifier
        let builder = SchemaBuilder()
        block(builder)
        var versions: [SchemaVersion] = []
        var state = SchemaState()
        var error: SchemaMigrationError?
        for declared in builder.versions {
            if declared.number <= (versions.last?.number ?? 0) {
                error = .invalidSchema(reason: "version \(declared.number) must be greater than 0 and than the version declared before it")
                break
            }
            // PRAGMA user_version holds a signed 32-bit integer; a larger version would be stored
            // truncated and the database would appear to be at some other version.
            if declared.number > Int(Int32.max) {
                error = .invalidSchema(reason: "version \(declared.number) is larger than PRAGMA user_version can hold (\(Int32.max))")
                break
            }
            var steps: [PlannedOperation] = []
            do {
                for operation in declared.operations {
                    let before = state
                    try state.apply(operation)
                    steps.append(PlannedOperation(operation: operation, before: before, after: state))
                }
            } catch let failure as SchemaMigrationError {
                error = failure.inVersion(declared.number)
                break
            } catch let failure {
                error = .invalidSchema(reason: "version \(declared.number): \(failure)")
                break
            }
            versions.append(SchemaVersion(number: declared.number, steps: steps, state: state))
        }
        self.versions = versions
        self.declarationError = error
    }

    /// The highest declared version; 0 when none is declared.
    public var latestVersion: Int { versions.last?.number ?? 0 }

    /// The tables the latest version declares.
    public var tables: [SchemaTable] { versions.last?.tables ?? [] }

    /// The table with this name that the latest version declares, if any.
    public func tableNamed(_ name: String) -> SchemaTable? { versions.last?.tableNamed(name) }

    /// The version with this number, if declared.
    public func versionNumbered(_ number: Int) -> SchemaVersion? { versions.first { $0.number == number } }
}
