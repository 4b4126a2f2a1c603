import Foundation
import Strata
import StrataORM
import Testing

extension FaultSweeps {
    /// Migrations (SQift's Migrator, the DSL up and down), a table rebuild and the ORM's schema sync,
    /// under every fault.
    @Suite struct SchemaFaultTests {
        static let schema = Schema(identifier: "faults") { schema in
            schema.version(1) { v1 in
                v1.createTable("owners") { t in
                    t.primaryKey("id")
                    t.column("name", type: .Text, constraints: ["NOT NULL"])
                    t.column("age", type: .Integer)
                }
                v1.createIndex("owners by name", on: "owners", columns: ["name"])
                v1.execute { db in
                    for id in 1...30 { try db.run("INSERT INTO owners(id, name, age) VALUES(?, ?, ?)", id, "owner \(id)", id) }
                }
            }
            schema.version(2) { v2 in
                v2.alterTable("owners") { t in
                    t.addColumn("nickname", type: .Text) // ALTER TABLE ADD COLUMN
                    t.alterColumn("age", changeTypeTo: .Real, setValue: #""age" * 1.5"#) // a rebuild
                }
                v2.createTable("pets") { t in
                    t.primaryKey("id")
                    t.column("owner", type: .Integer, constraints: [#"REFERENCES "owners"("id")"#])
                }
            }
        }

        static func migrated(to version: Int) -> (Connection) throws -> Void {
            { db in try schema.migrate(db, toVersion: version) }
        }

        @Test func dslMigratingUp() throws {
            try Sweep<Connection>(
                name: "DSL migrate up (ALTER and a rebuild)", faults: Fault.journalModeFaults, setUp: Self.migrated(to: 1),
                run: { db in try Self.schema.migrate(db, toVersion: 2) }, state: allRows
            )()
        }

        @Test func dslMigratingDown() throws {
            try Sweep<Connection>(
                name: "DSL migrate down", faults: Fault.journalModeFaults, setUp: Self.migrated(to: 2),
                run: { db in try Self.schema.migrate(db, toVersion: 1) }, state: allRows
            )()
        }

        @Test func tableRebuild() throws {
            try Sweep<Connection>(
                name: "table rebuild", faults: Fault.journalModeFaults, setUp: Self.migrated(to: 1),
                run: { db in
                    try db.rebuildTable(
                        named: "owners", definition: #""id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "born" INTEGER"#,
                        copying: [("id", #""id""#), ("name", #"upper("name")"#), ("born", #"2000 - "age""#)])
                },
                state: allRows
            )()
        }

        @Test func migrator() throws {
            func migrations(_ version: UInt64) -> String {
                switch version {
                case 1:
                    return
                        "CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER); INSERT INTO cars VALUES (1, 'Audi', 52642), (2, 'Mercedes', 57127)"
                default:
                    return
                        "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT); UPDATE cars SET price = price + 1; INSERT INTO person SELECT id, name FROM cars"
                }
            }
            try Sweep<Connection>(
                name: "Migrator", faults: Fault.journalModeFaults,
                setUp: { db in try Migrator(connection: db, desiredSchemaVersion: 1).runMigrationsIfNecessary(migrationSQLForSchemaVersion: migrations) },
                run: { db in try Migrator(connection: db, desiredSchemaVersion: 2).runMigrationsIfNecessary(migrationSQLForSchemaVersion: migrations) },
                state: { db in try allRows(db).replacingOccurrences(of: #"'\d{4}-\d\d-\d\d[^']*'"#, with: "'<time>'", options: .regularExpression) }
            )()
        }

        struct Person: Initializable, Equatable {
            var id = 0
            var name = ""
            var age = 0
            var email: String?
        }

        @Test func ormSyncSchema() throws {
            try Sweep<Storage>(
                name: "ORM syncSchema(preserve: true)", faults: Fault.journalModeFaults,
                setUp: { db in
                    try db.execute(#"CREATE TABLE "people"("id" INTEGER PRIMARY KEY NOT NULL, "name" TEXT NOT NULL, "age" TEXT, "gone" TEXT)"#)
                    for id in 1...30 { try db.run("INSERT INTO people VALUES(?, ?, ?, ?)", id, "p\(id)", "\(id)", "x") }
                },
                open: { path, _ in
                    try Storage(
                        filename: path,
                        Table<Person>(
                            name: "people",
                            Column(name: "id", keyPath: \Person.id, constraints: primaryKey(), notNull()),
                            Column(name: "name", keyPath: \Person.name, constraints: notNull()),
                            Column(name: "age", keyPath: \Person.age, constraints: notNull(), defaultValue(0)),
                            Column(name: "email", keyPath: \Person.email)))
                },
                connection: { $0.connection },
                run: { storage in _ = try storage.syncSchema(preserve: true) },
                state: allRows
            )()
        }
    }
}

extension ORMError: UnderlyingSQLiteError {
    var sqliteError: SQLiteError? {
        if case .sqliteError(let error) = self { return error }
        return nil
    }
}
