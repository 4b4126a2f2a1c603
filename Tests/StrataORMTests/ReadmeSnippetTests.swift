import Foundation
import StrataORM
import Testing

/// The project README's ORM example, so the front door stays true.
@Suite struct ReadmeSnippetTests {
    struct User: Initializable {
        var id = 0
        var firstName = ""
        var imageUrl: String?
    }

    @Test func readmeORMExample() throws {
        let directory = try TemporaryDirectory()
        let storage = try Storage(filename: directory.path("app.sqlite"),
            Table<User>(name: "users",
                Column(name: "id", keyPath: \User.id, constraints: primaryKey(), notNull()),
                Column(name: "first_name", keyPath: \User.firstName, constraints: notNull()),
                Column(name: "image_url", keyPath: \User.imageUrl)))
        #expect(try storage.syncSchema(preserve: true) == ["users": .newTableCreated])

        var user = User(id: 0, firstName: "John", imageUrl: "x")
        user.id = Int(try storage.insert(object: user))
        let john: User? = try storage.get(id: user.id)
        #expect(john?.firstName == "John")
        try storage.insert(User(id: 0, firstName: "O'Brien", imageUrl: nil))
        let some: [User] = try storage.getAll(where_(\User.firstName == "O'Brien" || \User.id < 10),
                                              orderBy(\User.id).desc(), limit(5))
        #expect(some.map(\.firstName) == ["O'Brien", "John"])
        #expect(try storage.count(all: User.self) == 2)
        try storage.update(all: User.self, set(assign(\User.imageUrl, nil as String?)), where_(\User.id > 0))
        let urls: [String?] = try storage.getAll().map { (user: User) in user.imageUrl }
        #expect(urls == [nil, nil])
    }
}
