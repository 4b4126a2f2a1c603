// Where a hub keeps its spaces: the storage a `SyncHub` runs its logic over (policies, dedup,
// versions, the restore chain, trimming and snapshots are the hub's, written once; a store only
// keeps and reads what the hub decides). Two stores: a folder of SQLite files (the default) and
// PostgreSQL (`StrataSyncPostgres`, behind the package trait `Hub`).
import Foundation
import Strata

/// Where a ``SyncHub`` keeps its spaces: a folder of SQLite files (``sqliteFolder(_:configureConnection:)``,
/// the default), or PostgreSQL (`SyncHubStore.postgres(url:)` in `StrataSyncPostgres`).
///
/// ```swift
/// let hub = try SyncHub(store: .sqliteFolder(hubFolder), limits: SyncLimits())
/// ```
/// The hub's logic (policies, applied-entry dedup, dense versions, the restore chain, trimming,
/// snapshots) is the same over every store.
public struct SyncHubStore: Sendable {
    package let storage: any SyncHubStorage

    package init(storage: any SyncHubStorage) { self.storage = storage }

    /// One SQLite file per space in `directory` (created if needed): the embedded default.
    /// `configureConnection` runs on each space's connection when the hub opens it.
    public static func sqliteFolder(
        _ directory: URL,
        configureConnection: @escaping @Sendable (Connection) throws -> Void = { _ in }
    ) throws -> SyncHubStore {
        SyncHubStore(storage: try SQLiteFolderHubStorage(directory: directory, configureConnection: configureConnection))
    }

    /// A short description of the store (its kind and place), for logs.
    public var description: String { storage.description }
}

/// The hub store protocol: what a store keeps for the hub. Each space's operations run through
/// ``withSpace(_:_:)``, one caller at a time in the process; ``SyncSpaceStorage/write(_:)``
/// excludes the other processes that share the store.
package protocol SyncHubStorage: Sendable {
    /// Creates the space `name`: `schema` makes its tables on a SQLite connection, whose
    /// definitions are the space's (replicas must match them). With `rules`, the space is made
    /// with them set, checked by the store (``SyncSpaceStorage/checkRules(_:)``) in the same
    /// transaction: rules the store refuses leave no space behind.
    func createSpace(_ name: String, schema: (Connection) throws -> Void, rules: InitialSpaceRules?) throws
    /// Checks `rules` as this store would when creating a space with the tables `schema` makes,
    /// and keeps nothing: a store that reads SQL otherwise than SQLite plans each rule on scratch
    /// tables it then rolls back (`strata-sync-hub rules check --postgres`).
    func verifyRules(_ rules: InitialSpaceRules, schema: (Connection) throws -> Void) throws
    /// The names of the spaces the store holds, sorted (`strata-sync-hub spaces`).
    func spaceNames() throws -> [String]
    /// Runs `body` with the space's storage; ``SyncError/unknownSpace(_:)`` when there is none.
    func withSpace<T>(_ name: String, _ body: (any SyncSpaceStorage) throws -> T) throws -> T
    /// Runs `body`, one push of `replica` (its entries' `sequences`) to the space `name`, in the
    /// space's push transaction (``SyncSpaceStorage/applyingPush(replica:sequences:_:)``). A
    /// store may apply pushes that arrive together in one transaction, each answered after it
    /// commits.
    func withPush<T>(_ name: String, replica: String, sequences: [Int64], _ body: (any SyncSpaceStorage) throws -> T) throws -> T
    /// Runs `body` on the space's SQLite connection, for stores that have one (``SyncHub/withSpace(_:_:)``).
    func withConnection<T>(_ name: String, _ body: (Connection) throws -> T) throws -> T
    /// Calls `onCommit(space, version)` when a write another process committed is seen, so
    /// long polls wake; `onCommit(nil, _)` when commits may have gone unseen (the store listened
    /// again after losing its connection), so every space's polls look again. A store shared by
    /// no other process never calls it.
    func observeCommits(_ onCommit: @escaping @Sendable (String?, Int64) -> Void)
    /// Kind and place, for logs.
    var description: String { get }
}

/// The hub's store failed for a reason that passes: a lost connection, a database server
/// restarting or refusing connections for now, a deadlock or a serialization failure. Nothing of
/// the request is refused: the replica keeps its writes and sends them again (the hub's HTTP
/// routes answer 503 with `Retry-After`), and an entry that committed before the failure is
/// recognized then and not applied twice.
public struct SyncHubStoreUnavailable: Error, Sendable, CustomStringConvertible {
    /// What failed, as the store said it.
    public let reason: String

    /// A failure of the store described by `reason`.
    public init(reason: String) { self.reason = reason }

    public var description: String { "the hub's store is unavailable for now (\(reason)); the request can be sent again" }
}

extension SyncHubStoreUnavailable: LocalizedError {
    /// The description, for `localizedDescription` (Foundation's default is a domain and a code).
    public var errorDescription: String? { description }
}

/// What one entry's apply made: the changes the store now holds (as a changeset, logged as
/// they are), and the rows whose conflicts the policy settled otherwise than by the entry.
package struct AppliedChanges {
    package var made: Data
    package var settled: [(String, [SyncValue])]
    package init(made: Data, settled: [(String, [SyncValue])]) { self.made = made; self.settled = settled }
}

/// What an additive migration changes: one line per table, column or index it adds.
package struct SyncMigrationPlan: Sendable, Equatable {
    package var space: String
    package var fromVersion: Int
    package var toVersion: Int
    /// `add table ...`, `add column table.column TYPE ...`, `add index ...`.
    package var additions: [String]
    /// The statements the store runs beyond the step itself (PostgreSQL's DDL), in order.
    package var storeStatements: [String] = []

    package init(space: String, fromVersion: Int, toVersion: Int, additions: [String], storeStatements: [String] = []) {
        self.space = space
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        self.additions = additions
        self.storeStatements = storeStatements
    }
}

/// What the hub recorded when it applied an entry.
package struct AppliedRecord {
    package var conflicts: String
    package var version: Int64
    package var digest: Int64?
    package init(conflicts: String, version: Int64, digest: Int64?) { self.conflicts = conflicts; self.version = version; self.digest = digest }
}

/// What a rule's comparison compares, as far as both stores agree on it: PostgreSQL compares
/// text with text and numbers with numbers, and refuses `bigint = text` where SQLite converts by
/// affinity; so a rule whose comparison mixes the two is refused on every store alike.
enum RuleOperandKind: Hashable, Sendable {
    case text, number, blob, boolean
    /// A claim: always text (a token's string).
    case claim

    init(_ affinity: DeclaredTypeAffinity) {
        switch affinity {
        case .text: self = .text
        case .integer, .real, .numeric: self = .number
        case .blob: self = .blob
        }
    }

    var words: String {
        switch self {
        case .text: "a TEXT column"
        case .number: "a numeric column"
        case .blob: "a BLOB column"
        case .boolean: "a boolean"
        case .claim: "a claim, always text"
        }
    }
}

/// A view's condition for one group of instances: rule SQL whose values it appends to the
/// arguments (numbered after those already there); nil when the group covers no row.
package typealias RuleCondition = (inout [BindingValue]) -> String?

/// How a store writes a rule's SQL: its parameters and its false.
package struct RuleDialect: Sendable {
    /// The placeholder of the `index`th argument (1-based).
    package let placeholder: @Sendable (Int) -> String

    /// The placeholder of an argument that is always an integer (a row's position), typed where
    /// the store would otherwise read it as text.
    let integerPlaceholder: @Sendable (Int) -> String

    /// The placeholder of a claim (`auth.*`), which is always text: typed where the store would
    /// otherwise read it as whatever it meets (PostgreSQL read `'\\x6f6b'` as the bytes `ok`
    /// beside a bytea column, and failed the whole pull on `'alice'` beside a bigint).
    var claimPlaceholder: @Sendable (Int) -> String = { "?\($0)" }
    /// The placeholder of a bucket's value whose kind its parameters query tells (nil: it does
    /// not): PostgreSQL compared two untyped values as text, so 1.0 and 1 differed.
    var bucketPlaceholder: @Sendable (Int, RuleOperandKind?) -> String = { index, _ in "?\(index)" }

    /// SQLite's numbered parameters (`?1`), which SQLite also reads as positional.
    package static let sqlite = RuleDialect(placeholder: { "?\($0)" }, integerPlaceholder: { "?\($0)" })
    /// PostgreSQL's `$1`: each value travels untyped and takes the type of what it meets; a
    /// claim is text.
    package static let postgres = RuleDialect(
        placeholder: { "$\($0)" }, integerPlaceholder: { "$\($0)::bigint" }, claimPlaceholder: { "$\($0)::text" },
        bucketPlaceholder: { index, kind in
            switch kind {
            case .number: "$\(index)::numeric"
            case .text, .claim: "$\(index)::text"
            case .blob: "$\(index)::bytea"
            case .boolean, nil: "$\(index)"
            }
        })
}

extension SyncHubStorage {
    /// One push at a time: the space's own push transaction.
    package func withPush<T>(_ name: String, replica: String, sequences: [Int64], _ body: (any SyncSpaceStorage) throws -> T) throws -> T {
        try withSpace(name) { storage in try storage.applyingPush(replica: replica, sequences: sequences) { try body(storage) } }
    }
}

extension SyncSpaceStorage {
    /// Each entry's write a transaction of its own (a store that keeps no push transaction).
    package func applyingPush<T>(replica: String, sequences: [Int64], _ body: () throws -> T) throws -> T { try body() }
    /// Nothing to prepare: each entry is applied as it comes.
    package func batchEntries(_ changesets: [Data], tables: [String]) throws {}
}

/// One space in a store: its tables, its log, its applied-entry records and its meta values.
package protocol SyncSpaceStorage {
    /// Runs `body` in one write transaction that excludes every other writer of the space (other
    /// processes too); nothing of it stays when it throws.
    func write<T>(_ body: () throws -> T) throws -> T
    /// Runs `body` in one read transaction (a consistent view).
    func read<T>(_ body: () throws -> T) throws -> T
    /// Runs `body`, which answers one push of `replica` (its entries' `sequences`) and applies
    /// its entries each in a ``write(_:)`` of its own. A store may hold one transaction around it, each write a savepoint of it (one lock
    /// and one commit per push on PostgreSQL); when `body` throws a ``SyncError`` (the push
    /// refused from an entry on), the writes before it stay, as they would have committed each,
    /// and on any other error none does. By default each write is a transaction of its own.
    func applyingPush<T>(replica: String, sequences: [Int64], _ body: () throws -> T) throws -> T
    /// Tells the store, inside ``applyingPush(replica:sequences:_:)``, that the push's entries
    /// are `changesets` and that nothing reads the space's rows in the middle of an entry (the
    /// space has no rules): a store may then read their rows at once and write what the entries
    /// made at the end (PostgreSQL's batch). By default nothing.
    func batchEntries(_ changesets: [Data], tables: [String]) throws

    /// Which schema version `tables` with `fingerprint` are (nil: the current); throws
    /// ``SyncError/schemaMismatch(local:remote:)`` or ``SyncError/refused(_:)``.
    func schemaWidths(tables: [String], fingerprint: String) throws -> [String: Int]?
    /// The space's schema version.
    func schemaVersion() throws -> Int
    /// Why the tables `created` makes are none of the space's schema versions, or nil when they
    /// are one of them (``SyncHub/createSpaceIfNeeded(_:schema:)`` on an existing space).
    func schemaDifference(from created: Connection) throws -> String?
    /// An additive migration of the space (``SyncHub/migrateSpace(_:to:_:)``): what it changes,
    /// made unless `dryRun` (then the checks run and nothing of the space changes).
    func migrateSchema(space: String, to version: Int, dryRun: Bool, _ body: (Connection) throws -> Void) throws -> SyncMigrationPlan

    /// A meta value (`chain`, `trimmed_through`, `trimmed_chain`).
    func meta(_ key: String) throws -> Int64?
    func setMeta(_ key: String, _ value: Int64) throws
    /// The newest version given (a trimmed log keeps it).
    func currentVersion() throws -> Int64
    /// The chain a logged entry has, if it is still in the log.
    func loggedChain(version: Int64) throws -> Int64?
    /// Logs an entry at the next version (one more than ``currentVersion()``); returns it.
    func appendLog(replica: String, sequence: Int64, changeset: Data, at seconds: Int64, chain: Int64) throws -> Int64
    /// Up to `limit` entries after `version`, in order.
    func entries(after version: Int64, limit: Int) throws -> [SyncLogEntry]
    /// The newest version logged before `seconds` (since 1970), 0 for none.
    func newestVersion(before seconds: Int64) throws -> Int64
    /// Files the entry at `version` under `routes` (inside ``write(_:)``).
    func appendLogRoutes(version: Int64, _ routes: [LogRoutes.Filed]) throws
    /// The `limit` oldest versions after `version` filed under any of `routes`, in order, with
    /// the rows filed under them (at most ``LogRoutes/largestFind`` pairs, else not complete).
    func loggedVersions(after version: Int64, routes: [Data], limit: Int) throws -> LogRoutes.Found
    /// The logged entries at `versions` (ascending), in order.
    func entries(at versions: [Int64]) throws -> [SyncLogEntry]
    /// Drops the log through `version`; returns how many entries went.
    func deleteLog(through version: Int64) throws -> Int
    /// How many entries the log holds and how many replicas have pushed (`strata-sync-hub spaces`).
    func inventory() throws -> (logEntries: Int, replicas: Int)

    func applied(replica: String, sequence: Int64) throws -> AppliedRecord?
    func recordApplied(replica: String, sequence: Int64, version: Int64, conflicts: String, digest: Int64) throws

    /// Applies one entry's changes to the space's tables under the policies (inside ``write(_:)``).
    /// - Throws: `EntryRefusal` when it cannot be applied.
    func applyEntry(
        _ changeset: Data, sequence: Int64, replica: String, tables: [String],
        policies: [String: SyncPolicy]
    ) throws -> AppliedChanges
    /// The row of `table` with `key`, every column, as the hub sends it back.
    func row(table: String, key: [SyncValue]) throws -> SyncRow
    /// The synced tables as a SQLite database image, with the version they are at (read together).
    func snapshot(tables: [String]) throws -> (version: Int64, database: Data)

    // MARK: Rules (partial sync)

    /// The rules' version (0 before any were set) and JSON (nil: none).
    func rules() throws -> (version: Int64, json: Data?)
    /// Sets (nil: removes) the rules, inside ``write(_:)``; returns their new version.
    func setRules(_ json: Data?) throws -> Int64
    /// The newest view recorded for `replica` and `user` at or before `version`.
    func viewRecord(replica: String, user: String, atOrBefore version: Int64) throws -> SyncViewRecord?
    /// Records a view (inside ``write(_:)``), dropping that replica's views before `keepingFrom`
    /// and every view of it under another user (it holds this user's view from now on).
    func recordView(_ record: SyncViewRecord, replica: String, user: String, keepingFrom: Int64) throws
    /// Forgets every view recorded for `replica` and `user` (inside ``write(_:)``).
    func forgetViews(replica: String, user: String) throws
    /// The SQLite connection holding the space's table definitions (rules compile on it).
    var definitions: Connection { get }
    /// How rule SQL is written for this store.
    var ruleDialect: RuleDialect { get }
    /// Runs rule SQL (written for ``ruleDialect``) on the space's tables, in the caller's read or
    /// write; each row's values.
    func ruleRows(_ sql: String, _ arguments: [BindingValue]) throws -> [[BindingValue]]
    /// The placeholder for argument `index` standing for a value of `table`'s `column` (a row's
    /// values stood in for by a `VALUES` list, which has no column types of its own).
    func ruleValue(_ index: Int, table: String, column: String) throws -> String
    /// Which of `rows` (each the values of `table`'s `columns`) satisfy any of `conditions` (rule
    /// SQL over the table's columns), each value compared as the table itself would compare it:
    /// its column's type, affinity and collation. The indexes of the rows that do.
    func ruleMatches(_ table: String, columns: [String], rows: [[BindingValue]], conditions: [RuleCondition]) throws -> Set<Int>
    /// `columns` of the rows of `table` that satisfy `condition` (rule SQL), each value as SQLite
    /// holds it; in the caller's read or write.
    func ruleTableRows(_ table: String, columns: [String], where condition: String, _ arguments: [BindingValue]) throws -> [[BindingValue]]
    /// Checks rules, each as a statement that reads no row, against what this store runs (its own
    /// reading of their SQL), inside ``write(_:)`` before they are set.
    /// - Throws: ``SyncError/invalidRules(_:)`` naming the rule the store reads otherwise.
    func checkRules(_ probes: [RuleProbe]) throws
}

extension SyncSpaceStorage {
    package func ruleValue(_ index: Int, table: String, column: String) throws -> String { ruleDialect.placeholder(index) }

    /// The rows as a `VALUES` list named as the table, each value typed by ``ruleValue(_:table:column:)``
    /// (a store whose placeholders carry the column's type).
    package func ruleMatches(_ table: String, columns: [String], rows: [[BindingValue]], conditions: [RuleCondition]) throws -> Set<Int> {
        var matched: Set<Int> = []
        let perRow = columns.count + 1
        let chunk = max(1, 20_000 / perRow)
        let rowColumn = quoteIdentifier(SyncBookkeeping.prefix + "row")
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + chunk)
            var values: [BindingValue] = []
            var tuples: [String] = []
            for index in start..<end {
                values.append(.integer(Int64(index)))
                var placeholders = [ruleDialect.integerPlaceholder(values.count)]
                for column in 0..<columns.count {
                    values.append(column < rows[index].count ? rows[index][column] : .null)
                    placeholders.append(try ruleValue(values.count, table: table, column: columns[column]))
                }
                tuples.append("(" + placeholders.joined(separator: ", ") + ")")
            }
            for condition in conditions {
                var arguments = values
                guard let sql = condition(&arguments) else { continue }
                let statement =
                    "WITH " + quoteIdentifier(table) + "(" + ([rowColumn] + columns.map(quoteIdentifier)).joined(separator: ", ")
                    + ") AS (VALUES " + tuples.joined(separator: ", ") + ") SELECT " + rowColumn + " FROM " + quoteIdentifier(table)
                    + " WHERE " + sql
                for row in try ruleRows(statement, arguments) {
                    if case .integer(let index)? = row.first { matched.insert(Int(index)) }
                }
            }
            start = end
        }
        return matched
    }

    package func ruleTableRows(
        _ table: String, columns: [String], where condition: String,
        _ arguments: [BindingValue]
    ) throws -> [[BindingValue]] {
        let sql = "SELECT " + columns.map(quoteIdentifier).joined(separator: ", ") + " FROM " + quoteIdentifier(table) + " WHERE " + condition
        return try ruleRows(sql, arguments)
    }

    package func checkRules(_ probes: [RuleProbe]) throws {}
}

extension SyncHubStorage {
    /// Creates the space `name` without rules.
    package func createSpace(_ name: String, schema: (Connection) throws -> Void) throws {
        try createSpace(name, schema: schema, rules: nil)
    }
}

/// Rules a space is created with: their JSON as stored, and their probes in a store's dialect.
package struct InitialSpaceRules {
    package var json: Data
    package var probes: (RuleDialect) -> [RuleProbe]

    package init(json: Data, probes: @escaping (RuleDialect) -> [RuleProbe]) {
        self.json = json
        self.probes = probes
    }
}

/// One rule as a statement that reads no row, every reference bound to NULL, and the place that
/// names the rule in messages.
package struct RuleProbe: Sendable {
    package var place: String
    package var statement: String
    package var arguments: [BindingValue]
}
