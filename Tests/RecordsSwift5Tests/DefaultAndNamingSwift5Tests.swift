import Foundation
import StrataSQift
import StrataRecords
import Testing

// `@Default` and `@Record(columnNaming:)` as Swift 5 client code writes them.
enum DefaultsSwift5 {
    @Record(table: "task") struct TaskV1: Equatable {
        @PrimaryKey var id: Int64?
        var title: String
    }
    @Record(table: "task", columnNaming: .snakeCase) struct Task: Equatable {
        @PrimaryKey var id: Int64?
        var title: String
        @Default(false) var isDone: Bool
        @Default(0) var priorityLevel: Int
        @Default("") @Column("memo") var noteText: String
        @Default(nil) var dueAt: Double?
    }

    @Suite struct Tests {
        @Test func aDefaultedSnakeCaseColumnIsAddedOverRows() throws {
            let db = try Connection()
            try TaskV1.createTable(db)
            var first = TaskV1(id: nil, title: "write")
            try first.insert(db)
            let schema = RecordSchema(Task.self)
            let plan = try schema.plan(for: db)
            #expect(
                plan.sql == [
                    #"ALTER TABLE "task" ADD COLUMN "is_done" INTEGER NOT NULL DEFAULT 0"#,
                    #"ALTER TABLE "task" ADD COLUMN "priority_level" INTEGER NOT NULL DEFAULT 0"#,
                    #"ALTER TABLE "task" ADD COLUMN "memo" TEXT NOT NULL DEFAULT ''"#,
                    #"ALTER TABLE "task" ADD COLUMN "due_at" REAL DEFAULT NULL"#
                ])
            try schema.migrate(db)
            #expect(try Task.fetchAll(db) == [Task(id: 1, title: "write", isDone: false, priorityLevel: 0, noteText: "", dueAt: nil)])
            #expect(try Task.where { $0.priorityLevel == 0 && $0.isDone == false }.fetchCount(db) == 1)
            try Task.checkSchema(db)
        }
    }
}
