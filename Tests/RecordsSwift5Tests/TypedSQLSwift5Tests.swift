import Foundation
import StrataSQift
import StrataRecords
import Testing

// Issue 68's spellings, written as Swift 5 client code writes them.
enum TypedSQLSwift5 {
    @Record struct Author: Equatable { @PrimaryKey var id: Int64?; var name: String; var bookCount: Int }
    @Record struct Book: Equatable { @PrimaryKey var id: Int64?; var authorId: Int64; var title: String; var year: Int }
    @Record struct Comment: Equatable { @PrimaryKey var id: Int64?; var parentId: Int64?; var body: String }
    @Record struct User: Equatable { @PrimaryKey var id: Int64?; @Unique var email: String; var name: String }
    @Record(view: "author_totals") struct AuthorTotal: Equatable { var authorId: Int64; var books: Int }

    @Suite struct Tests {
        @Test func spellings() throws {
            let db = try Connection()
            try Author.createTable(db)
            try Book.createTable(db)
            try Comment.createTable(db)
            try User.createTable(db)
            try Book.afterInsert(named: "count_books") { new in
                Author.where { $0.id == new.authorId }.update { $0.bookCount += 1 }
            }.create(db, temporary: false)
            try Book.afterUpdate(of: \.title) { old, new in
                Author.where { $0.id == new.authorId }.update { $0.name = old.title }
            }.create(db)
            try Book.afterDelete(when: { old in old.year > 2000 }) { old in
                Author.where { $0.id == old.authorId }.update { $0.bookCount -= 1 }
            }.create(db)

            _ = try Author(id: nil, name: "Le Guin", bookCount: 0).inserted(db)
            _ = try Book(id: nil, authorId: 1, title: "Lavinia", year: 2008).inserted(db)
            _ = try Book(id: nil, authorId: 1, title: "The Dispossessed", year: 1974).inserted(db)

            let recentAuthors = CTE("recent_authors", Book.where { $0.year > 2000 }.select(\.authorId))
            let authors: [Author] = try Author.with(recentAuthors)
                .where { $0.id.in(recentAuthors) }
                .fetchAll(db)
            #expect(authors == [Author(id: 1, name: "Le Guin", bookCount: 2)])

            for parent in [nil, 1, 2] as [Int64?] { _ = try Comment(id: nil, parentId: parent, body: "c").inserted(db) }
            let rootID: Int64 = 1
            let thread: [Comment] = try Comment.recursive(
                start: Comment.where { $0.id == rootID },
                step: { previous in Comment.join(previous, on: { comment, parent in comment.parentId == parent.id }) }
            ).order(by: \.id).fetchAll(db)
            #expect(thread.count == 3)
            let near = try Comment.recursive(
                start: Comment.where { $0.id == rootID },
                step: { previous in Comment.join(previous, on: { comment, parent in comment.parentId == parent.id }) },
                maxDepth: 1
            ).fetchAll(db)
            #expect(near.count == 2)

            try AuthorTotal.createView(db)
            #expect(try AuthorTotal.where { $0.books > 1 }.fetchAll(db) == [AuthorTotal(authorId: 1, books: 2)])

            var user = User(id: nil, email: "a@b", name: "A")
            try user.insert(db, onConflict: .ignore)
            try user.upsert(db, onConflict: \.email, doUpdate: [\.name])
            try user.upsert(db, onConflict: \.email, doNothing: true)
            let users = [User(id: nil, email: "c@d", name: "C")]
            try User.insertAll(db, users, onConflict: .replace)
            #expect(try User.fetchCount(db) == 2)
        }
    }
}

extension TypedSQLSwift5.AuthorTotal {
    static let definition = TypedSQLSwift5.Book.group(by: \.authorId).select { ($0.authorId, $0.id.count()) }
}
