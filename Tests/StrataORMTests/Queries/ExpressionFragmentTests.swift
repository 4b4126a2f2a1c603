import Foundation
import Testing
@testable import StrataORM

/// The ORM's expressions compile to `SQLFragment`s: key paths become column segments (so a join
/// can qualify them), values are bound, and the SQL is what the ORM always wrote.
@Suite struct ExpressionFragmentTests {
    func fragment(_ storage: Storage, _ expression: any StrataORM.Expression) throws -> SQLFragment {
        var serializer = SQLSerializer(schema: storage.schema)
        try serializer.append(expression)
        return serializer.fragment
    }

    @Test func expressionsAreFragmentsWithColumnSegments() throws {
        let storage = try sampleStorage()
        let condition = try fragment(storage, \Person.age >= 40 && \Person.nickname == nil || like(\Person.name, "A%"))
        #expect(condition.sql == #"((("age" >= ?) AND ("nickname" IS NULL)) OR ("name" LIKE ?))"#)
        #expect(condition.arguments == [.integer(40), .text("A%")])
        #expect(
            condition.qualifyingColumns(with: "p").sql
                == #"((("p"."age" >= ?) AND ("p"."nickname" IS NULL)) OR ("p"."name" LIKE ?))"#)
        let call = try fragment(storage, groupConcat(\Person.name, separator: "; "))
        #expect(call.sql == #"group_concat("name", ?)"#)
        #expect(call.arguments == [.text("; ")])
        let values = try fragment(storage, in_(\Person.id, [1, 2]))
        #expect(values.sql == #"("id" IN (?, ?))"#)
    }

    @Test func queriesRunThroughFragments() throws {
        let storage = try sampleStorage()
        let hostile = "x' OR '1'='1"
        let none: [Person] = try storage.getAll(where_(\Person.name == hostile))
        #expect(none.isEmpty)
        let forties: [String] = try storage.select(\Person.name, where_(\Person.age == 40), orderBy(\Person.name).desc(), limit(1, offset: 1))
        #expect(forties == ["Bob"])
        try storage.update(all: Person.self, set(assign(\Person.age, \Person.age + 1)), where_(\Person.nickname != nil))
        #expect(try storage.select(\Person.age, where_(\Person.name == "Ann")) == [31])
        try storage.delete(all: Person.self, where_(\Person.age > 45))
        #expect(try storage.count(all: Person.self) == 3)
    }
}
