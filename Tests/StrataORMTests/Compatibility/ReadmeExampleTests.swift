import Foundation
import StrataTestSupport
import Testing
import StrataORM

/// The README's ORM example, run as written.
@Suite struct ReadmeExampleTests {
    struct User: Initializable {
        var id = 0
        var firstName = ""
        var imageUrl: String?
    }

    @Test func readmeExampleRuns() throws {
        let directory = try TemporaryDirectory()
        let storage = try Storage(
            filename: directory.path("app.sqlite"),
            Table<User>(
                name: "users",
                Column(name: "id", keyPath: \User.id, constraints: primaryKey(), notNull()),
                Column(name: "first_name", keyPath: \User.firstName, constraints: notNull()),
                Column(name: "image_url", keyPath: \User.imageUrl)))
        #expect(try storage.syncSchema(preserve: true) == ["users": .newTableCreated])

        var user = User(id: 0, firstName: "John", imageUrl: nil)
        user.id = Int(try storage.insert(object: user))
        let john: User? = try storage.get(id: user.id)
        #expect(john?.firstName == "John")
        try storage.insert(User(id: 0, firstName: "O'Brien", imageUrl: "x"))
        let some: [User] = try storage.getAll(
            where_(\User.firstName == "O'Brien" || \User.id < 10),
            orderBy(\User.id).desc(), limit(5))
        #expect(some.map(\.firstName) == ["O'Brien", "John"])
        let count = try storage.count(all: User.self)
        #expect(count == 2)
        try storage.update(all: User.self, set(assign(\User.imageUrl, nil as String?)), where_(\User.id > 1))
        #expect(try storage.count(\User.imageUrl) == 0)
    }
}
