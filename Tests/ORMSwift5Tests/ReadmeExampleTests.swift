// The SQLiteORM-Swift README's example, as written for `import SQLiteORM`, in Swift 5 mode.
// (The README declares `birthDate` as a String but stores 664416000 in an INTEGER column: the
// evident intent is an Int.)
import Foundation
import Testing
import StrataORM

struct User: Initializable {
    var id = 0
    var firstName = ""
    var lastName = ""
    var birthDate = 0
    var imageUrl: String?
    var typeId = 0
}

struct UserType: Initializable {
    var id = 0
    var name = ""
}

func makeStorage(path: String) throws -> Storage {
    return try Storage(
        filename: path,
        Table<User>(
            name: "users",
            Column(name: "id", keyPath: \User.id, constraints: primaryKey(), notNull()),
            Column(name: "first_name", keyPath: \User.firstName, constraints: notNull()),
            Column(name: "last_name", keyPath: \User.lastName, constraints: notNull()),
            Column(name: "birth_date", keyPath: \User.birthDate, constraints: notNull()),
            Column(name: "image_url", keyPath: \User.imageUrl),
            Column(name: "type_id", keyPath: \User.typeId, constraints: notNull())),
        Table<UserType>(
            name: "user_types",
            Column(name: "id", keyPath: \UserType.id, constraints: primaryKey(), notNull()),
            Column(name: "name", keyPath: \UserType.name, constraints: notNull())))
}

func temporaryDatabasePath() throws -> (directory: URL, path: String) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("orm-swift5-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return (directory, directory.appendingPathComponent("db.sqlite").path)
}

/// Runs the README from top to bottom and checks each documented result.
func runReadmeExample(path: String) throws {
    let storage = try makeStorage(path: path)
    let syncResults = try storage.syncSchema(preserve: true)
    #expect(syncResults == ["users": .newTableCreated, "user_types": .newTableCreated])

    var user = User(id: 0, firstName: "John", lastName: "Doe", birthDate: 664416000, imageUrl: "url_to_heaven", typeId: 3)
    let insertedId = try storage.insert(object: user)
    #expect(insertedId == 1)
    user.id = Int(insertedId)

    let secondUser = User(id: 2, firstName: "Alice", lastName: "Inwonder", birthDate: 831168000, imageUrl: nil, typeId: 2)
    try storage.replace(object: secondUser) //  insert with 'id' 2

    if let user1: User = try storage.get(id: 1) {
        #expect(user1.firstName == "John")
        #expect(user1.lastName == "Doe")
        #expect(user1.birthDate == 664416000)
        #expect(user1.imageUrl == "url_to_heaven")
        #expect(user1.typeId == 3)
    } else {
        Issue.record("user with id 1 does not exist")
    }
    let alice: User? = try storage.get(id: 2)
    #expect(alice?.firstName == "Alice")
    #expect(alice?.imageUrl == nil)

    user.firstName = "Nicholas"
    user.imageUrl = "https://cdn1.iconfinder.com/data/icons/man-icon-set/100/man_icon-21-512.png"
    try storage.update(object: user)
    let updated: User? = try storage.get(id: 1)
    #expect(updated?.firstName == "Nicholas")
    #expect(updated?.lastName == "Doe")
    #expect(updated?.imageUrl == "https://cdn1.iconfinder.com/data/icons/man-icon-set/100/man_icon-21-512.png")

    let allBeforeDelete: [User] = try storage.getAll()
    #expect(allBeforeDelete.map { $0.id } == [1, 2])

    try storage.delete(object: user)
    let deleted: User? = try storage.get(id: 1)
    #expect(deleted == nil)

    let allUsers: [User] = try storage.getAll()
    print("allUsers (\(allUsers.count):")
    for user in allUsers {
        print(user)
    }
    #expect(allUsers.count == 1)
    #expect(allUsers.first?.firstName == "Alice")

    let resync = try storage.syncSchema(preserve: true)
    #expect(resync == ["users": .alredyInSync, "user_types": .alredyInSync])
}

@Suite struct ReadmeExampleTests {
    @Test func inMemoryByName() throws {
        try runReadmeExample(path: ":memory:")
    }

    @Test func inMemoryByEmptyFilename() throws {
        try runReadmeExample(path: "")
    }

    @Test func onFile() throws {
        let (directory, path) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: directory) }
        try runReadmeExample(path: path)
        // The data is really in the file: a second storage sees what the first left.
        let reopened = try makeStorage(path: path)
        let users: [User] = try reopened.getAll()
        #expect(users.map { $0.firstName } == ["Alice"])
    }

    @Test func readmeErrorHandlingShape() {
        // The README wraps everything in do/catch and prints the error.
        do {
            let storage = try makeStorage(path: ":memory:")
            let missing: User? = try storage.get(id: 1)
            Issue.record("expected no such table, got \(String(describing: missing))")
        } catch {
            #expect("\(error)".contains("no such table"))
        }
    }
}

@Suite struct UpstreamSpellingTests {
    @Test func currentUpstreamSpellingsCompileAndRun() throws {
        let storage = try Storage(
            filename: "",
            tables: Table<User>(
                name: "users",
                columns: Column(name: "id", keyPath: \User.id, constraints: primaryKey().autoincrement(), notNull()),
                Column(name: "first_name", keyPath: \User.firstName, constraints: notNull()),
                Column(name: "last_name", keyPath: \User.lastName, constraints: notNull()),
                Column(name: "birth_date", keyPath: \User.birthDate, constraints: notNull()),
                Column(name: "image_url", keyPath: \User.imageUrl),
                Column(name: "type_id", keyPath: \User.typeId, constraints: notNull())))
        _ = try storage.syncSchema(preserve: false)
        var user = User(id: 0, firstName: "A", lastName: "B", birthDate: 1, imageUrl: nil, typeId: 1)
        user.id = Int(try storage.insert(user))
        try storage.replace(User(id: 10, firstName: "C", lastName: "D", birthDate: 2, imageUrl: "x", typeId: 2))
        user.lastName = "Z"
        try storage.update(user)
        let all = try storage.getAll(all: User.self, where_(\User.id < 10), orderBy(\User.id).desc(), limit(5))
        #expect(all.map { $0.lastName } == ["Z"])
        #expect(try storage.count(all: User.self) == 2)
        #expect(try storage.count(\User.imageUrl) == 1)
        #expect(try storage.max(\User.id) == 10)
        #expect(try storage.avg(\User.typeId) == 1.5)
        var names: [String] = []
        try storage.forEach(User.self, orderBy(\User.id)) { names.append($0.firstName) }
        #expect(names == ["A", "C"])
        let ids: [Int] = try storage.select(\User.id, where_(\User.typeId == 2))
        #expect(ids == [10])
        try storage.update(all: User.self, set(assign(\User.typeId, 7)), where_(\User.id == 10))
        #expect(try storage.count(all: User.self, where_(\User.typeId == 7)) == 1)
        try storage.delete(user)
        try storage.delete(all: User.self)
        #expect(try storage.count(all: User.self) == 0)
        #expect(try storage.tableExists(with: "users"))
        try storage.beginTransaction()
        try storage.insert(user)
        try storage.rollback()
        #expect(try storage.count(all: User.self) == 0)
    }

    @Test func safeStorageReturnsResults() throws {
        let storage = try SafeStorage(
            filename: ":memory:",
            tables: Table<UserType>(
                name: "user_types",
                columns: Column(name: "id", keyPath: \UserType.id, constraints: primaryKey(), notNull()),
                Column(name: "name", keyPath: \UserType.name, constraints: notNull())))
        switch storage.syncSchema(preserve: true) {
        case .success(let results): #expect(results["user_types"] == .newTableCreated)
        case .failure(let error): Issue.record("\(error)")
        }
        let inserted = storage.insert(UserType(id: 0, name: "admin"))
        #expect((try? inserted.get()) == 1)
        let fetched: Result<UserType?, Error> = storage.get(id: 1)
        #expect((try? fetched.get())??.name == "admin")
        let all: Result<[UserType], Error> = storage.getAll()
        #expect((try? all.get())?.count == 1)
        let missing: Result<[User], Error> = storage.getAll()
        if case .success = missing { Issue.record("an unmapped type must fail") }
        #expect((try? storage.count(all: UserType.self).get()) == 1)
        #expect((try? storage.max(\UserType.id).get()) == 1)
        #expect((try? storage.groupConcat(\UserType.name).get()) == "admin")
        #expect((try? storage.select(\UserType.name, where_(\UserType.id == 1)).get()) == ["admin"])
        let duplicate = storage.replace(UserType(id: 1, name: "root"))
        if case .failure(let error) = duplicate { Issue.record("\(error)") }
        let failed = storage.transaction { () throws -> Int in
            try storage.storage.insert(UserType(id: 0, name: "temp"))
            throw Error.invalidQuery("roll back")
        }
        if case .failure(let error) = failed {
            #expect(error == Error.invalidQuery("roll back"))
        } else {
            Issue.record("the transaction must fail")
        }
        #expect((try? storage.count(all: UserType.self).get()) == 1)
        let bad = storage.beginTransaction().flatMap { storage.beginTransaction() }
        if case .failure(let error) = bad, case .sqliteError(let sqlite) = error {
            #expect(sqlite.message.contains("within a transaction"))
        } else {
            Issue.record("a nested BEGIN must fail with SQLite's error")
        }
        storage.rollback()
    }
}

@Suite struct PredefinedSchemaTests {
    /// The README starts from a database that already has its schema: the storage uses it as is.
    @Test func readmeOnPredefinedSchema() throws {
        let (directory, path) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: directory) }
        let setup = try Connection(storageLocation: .onDisk(path))
        try setup.execute(
            """
            CREATE TABLE users (
                id INTEGER PRIMARY KEY NOT NULL,
                first_name TEXT NOT NULL,
                last_name TEXT NOT NULL,
                birth_date INTEGER NOT NULL,
                image_url TEXT,
                type_id INTEGER NOT NULL);
            CREATE TABLE user_types (
                id INTEGER PRIMARY KEY NOT NULL,
                name TEXT NOT NULL)
            """)
        let storage = try makeStorage(path: path)
        var user = User(id: 0, firstName: "John", lastName: "Doe", birthDate: 664416000, imageUrl: "url_to_heaven", typeId: 3)
        let insertedId = try storage.insert(object: user)
        #expect(insertedId == 1)
        user.id = Int(insertedId)
        let secondUser = User(id: 2, firstName: "Alice", lastName: "Inwonder", birthDate: 831168000, imageUrl: nil, typeId: 2)
        try storage.replace(object: secondUser)
        if let user1: User = try storage.get(id: 1) {
            #expect("user = \(user1.firstName) \(user1.lastName)" == "user = John Doe")
        } else {
            Issue.record("user with id 1 does not exist")
        }
        let allUsers: [User] = try storage.getAll()
        #expect(allUsers.count == 2)
        #expect(try storage.syncSchema(preserve: true) == ["users": .alredyInSync, "user_types": .alredyInSync])
    }
}
