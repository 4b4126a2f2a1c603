import Foundation
import StrataSQift
import Strata
import StrataRecords
import Testing

@Record struct Player: Equatable {
    @PrimaryKey var id: Int64?
    var name: String
    var team: String?
    var score: Int
}

extension FaultSweeps {
    /// Records' inserts and typed updates, and a changeset's apply, under every fault.
    @Suite struct DataFaultTests {
        static func players(_ db: Connection) throws {
            try Player.createTable(db)
            try db.transaction {
                for id in 1...30 { _ = try Player(id: Int64(id), name: "p\(id)", team: id % 2 == 0 ? "red" : "blue", score: id).inserted(db) }
            }
        }

        /// Records have no `insertAll` on this branch (issue 28 adds it): a transaction of single
        /// inserts stands for it, then a typed update.
        @Test func recordsInsertAndTypedUpdate() throws {
            try Sweep<Connection>(
                name: "records insert + typed update", faults: Fault.journalModeFaults, setUp: Self.players,
                run: { db in
                    try db.transaction {
                        for id in 100..<120 { var player = Player(id: nil, name: "new \(id)", team: "green", score: id); try player.insert(db) }
                        _ = try Player.where { $0.team == "red" }.update(db, set: { [$0.score.set(0), $0.team.set("gold")] })
                    }
                },
                state: allRows
            )()
        }

        /// `insertAll` opens its own transaction: all rows or none, under every fault.
        @Test func recordsInsertAll() throws {
            try Sweep<Connection>(
                name: "records insertAll", faults: Fault.journalModeFaults, setUp: Self.players,
                run: { db in
                    _ = try Player.insertAll(db, (100..<140).map { Player(id: nil, name: "new \($0)", team: nil, score: $0) })
                },
                state: allRows
            )()
        }

        /// Outside a transaction, each typed update is its own statement-transaction.
        @Test func recordsTypedUpdateAlone() throws {
            try Sweep<Connection>(
                name: "records typed update", faults: Fault.journalModeFaults, setUp: Self.players,
                run: { db in _ = try Player.where { $0.score > 5 }.update(db, set: { $0.name.set("renamed") }) },
                state: allRows
            )()
        }

        @Test func changesetApply() throws {
            // The changeset: made on a copy in memory with the same rows.
            let scratch = try Connection(storageLocation: .inMemory)
            try Self.players(scratch)
            let session = try scratch.recordChanges()
            try scratch.execute(
                """
                INSERT INTO "player"(id, name, team, score) VALUES (200, 'x', 'green', 1), (201, 'y', NULL, 2);
                UPDATE "player" SET score = score * 10 WHERE team = 'blue';
                DELETE FROM "player" WHERE id BETWEEN 10 AND 20;
                """)
            let changeset = try session.changeset()
            session.close()
            try Sweep<Connection>(
                name: "changeset apply", faults: Fault.journalModeFaults, setUp: Self.players,
                run: { db in _ = try db.apply(changeset) { _ in .abort } },
                state: allRows
            )()
        }
    }
}
