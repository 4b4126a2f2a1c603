// swift-format-ignore-file
// (The README and article examples here are compared word for word; their layout is theirs.)
// The README's and the Examples article's examples for `import StrataORM`.
import StrataORM

extension READMEExamples {
    func ormExample11() throws {
        // README:begin 11
        struct User: Initializable {
            var id = 0
            var firstName = ""
        }
        let storage = try Storage(filename: "",   // in memory
            Table<User>(name: "users",
                Column(name: "id", keyPath: \User.id, constraints: primaryKey(), notNull()),
                Column(name: "first_name", keyPath: \User.firstName, constraints: notNull())))
        print(try storage.syncSchema(preserve: true))   // ["users": new table created]
        let id = try storage.insert(object: User(id: 0, firstName: "O'Brien"))   // a value, never SQL
        let found: [User] = try storage.getAll(where_(\User.firstName == "O'Brien"))
        print(id, found.first?.firstName ?? "")        // 1 O'Brien
        // README:end
    }

    func ormExample20() throws {
        // DOC:begin Examples 15
        struct User: Initializable {
            var id = 0
            var firstName = ""
            var imageUrl: String?
        }

        let storage = try Storage(filename: "users.sqlite",   // "" or ":memory:" for in memory
            Table<User>(name: "users",
                Column(name: "id", keyPath: \User.id, constraints: primaryKey(), notNull()),
                Column(name: "first_name", keyPath: \User.firstName, constraints: notNull()),
                Column(name: "image_url", keyPath: \User.imageUrl)))
        print(try storage.syncSchema(preserve: true))       // ["users": new table created]

        var user = User(id: 0, firstName: "John", imageUrl: nil)
        user.id = Int(try storage.insert(object: user))    // or insert(_:), upstream's spelling
        let john: User? = try storage.get(id: user.id)
        let some: [User] = try storage.getAll(where_(\User.firstName == "O'Brien" || \User.id < 10),
                                              orderBy(\User.id).desc(), limit(5))
        let count = try storage.count(all: User.self)
        try storage.update(all: User.self, set(assign(\User.imageUrl, nil as String?)), where_(\User.id > 100))
        print(john?.firstName ?? "", some.count, count)    // John 1 1
        // DOC:end
    }
}
