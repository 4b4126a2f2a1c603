import Foundation
import StrataRecords
import Testing

@Record struct Tagged: Equatable { var title: String; var tag: String; var position: Int }

@Suite struct TableValuedFunctionRecordTests {
    @Test func aTypedQueryJoinsATableValuedFunctionThroughTheLiteralForms() throws {
        let db = try makeLibrary()
        try db.createTableValuedFunction(
            TableValuedFunction(name: "words", columns: ["word", "position"], parameters: ["text"]) { arguments in
                (arguments[0].textValue ?? "").split(separator: " ").enumerated().map { [String($1), $0 + 1] }
            })
        let minimum = 1960
        let tagged = try Tagged.fetchAll(
            db,
            literal: """
                SELECT book.title AS title, w.word AS tag, w.position AS position
                FROM book JOIN words(book.title) AS w
                WHERE book.year > \(minimum) AND w.position <= \(2) ORDER BY book.id, w.position
                """)
        #expect(
            tagged == [
                Tagged(title: "The Dispossessed", tag: "The", position: 1),
                Tagged(title: "The Dispossessed", tag: "Dispossessed", position: 2),
                Tagged(title: "Lavinia", tag: "Lavinia", position: 1)
            ])
        let books = try Book.fetchAll(db, literal: "SELECT * FROM book WHERE id IN (SELECT word FROM words(\("3 1")))")
        #expect(books.map(\.title) == ["The Dispossessed", "Lavinia"])
    }
}
