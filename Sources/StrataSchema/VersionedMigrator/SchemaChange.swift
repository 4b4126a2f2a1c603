// How every schema change runs, whichever front-end planned it (SQift's Migrator, DatabaseMigrator,
// the Schema DSL, RecordSchema, the ORM's syncSchema, StrataSync's bookkeeping): one IMMEDIATE
// transaction (a savepoint inside the caller's), foreign-key enforcement off around it so a table
// rebuild's DROP TABLE fires no ON DELETE action, and the foreign keys the change broke found
// before the commit.
import StrataKernel
import Foundation

/// The one runner of schema changes: atomicity, foreign keys off during rebuilds, and the check
/// for the violations a change added, written once for every front-end.
package struct SchemaChange {
    /// When the foreign keys are checked before the commit.
    package enum ForeignKeyCheck: Sendable, Equatable {
        /// Never (SQLiteORM's `sync_schema` checks nothing).
        case none
        /// Only where the connection enforces foreign keys, as the app runs: a database used
        /// without enforcement may hold violations on purpose.
        case whenEnforced
        /// Always.
        case always
    }

    /// The savepoint's name when the change runs inside the caller's transaction.
    package var savepointName: String
    /// Whether enforcement is turned off around the transaction (SQLite ignores the pragma inside
    /// one); needed by a change that may rebuild a table.
    package var disablesForeignKeys = true
    package var foreignKeyCheck: ForeignKeyCheck
    /// The error for the violations the change added (each front-end names its own;
    /// ``DatabaseMigratorError/foreignKeysViolated(_:)`` when it names none).
    package var violationError: @Sendable ([ForeignKeyViolation]) -> any Error
    /// The error when the change must run inside the caller's transaction with enforcement on
    /// over keys with ON DELETE or ON UPDATE actions, which a rebuild's DROP TABLE would fire;
    /// nil lets the change run (its steps refuse a rebuild themselves).
    package var keyActionsInTransactionError: (@Sendable () -> any Error)?

    package init(
        savepointName: String, disablesForeignKeys: Bool = true, foreignKeyCheck: ForeignKeyCheck,
        violationError: @escaping @Sendable ([ForeignKeyViolation]) -> any Error = { DatabaseMigratorError.foreignKeysViolated($0) },
        keyActionsInTransactionError: (@Sendable () -> any Error)? = nil
    ) {
        self.savepointName = savepointName
        self.disablesForeignKeys = disablesForeignKeys
        self.foreignKeyCheck = foreignKeyCheck
        self.violationError = violationError
        self.keyActionsInTransactionError = keyActionsInTransactionError
    }

    /// Runs `body` as one atomic change: when anything throws, the database is exactly as before.
    package func run<T>(on connection: Connection, _ body: () throws -> T) throws -> T {
        let enforced = try connection.foreignKeysEnabled()
        let checks = foreignKeyCheck == .always || (foreignKeyCheck == .whenEnforced && enforced)
        func checked() throws -> T {
            // Compared as counts per foreign key: a rebuild renumbers the rows that hold an
            // older violation, which is not one the change added.
            let before = checks ? Self.violationCounts(try connection.foreignKeyViolations()) : [:]
            let result = try body()
            if checks {
                let after = try connection.foreignKeyViolations()
                let grown = Set(Self.violationCounts(after).filter { $0.value > before[$0.key, default: 0] }.map(\.key))
                let added = after.filter { grown.contains(ViolationKey($0)) }
                if !added.isEmpty { throw violationError(added) }
            }
            return result
        }
        if connection.isInTransaction {
            if let keyActionsInTransactionError, enforced, try connection.schemaReader.hasForeignKeyActions() {
                throw keyActionsInTransactionError()
            }
            return try connection.strataSavepoint(named: savepointName, closure: checked)
        }
        func transaction() throws -> T { try connection.transaction(transactionType: .immediate, closure: checked) }
        return disablesForeignKeys ? try connection.withForeignKeysDisabled(transaction) : try transaction()
    }

    private struct ViolationKey: Hashable {
        let table: [UInt8]
        let parentTable: [UInt8]
        let foreignKeyIndex: Int
        init(_ violation: ForeignKeyViolation) {
            table = IdentifierSet.key(violation.table)
            parentTable = IdentifierSet.key(violation.parentTable)
            foreignKeyIndex = violation.foreignKeyIndex
        }
    }

    private static func violationCounts(_ violations: [ForeignKeyViolation]) -> [ViolationKey: Int] {
        violations.reduce(into: [:]) { $0[ViolationKey($1), default: 0] += 1 }
    }
}
