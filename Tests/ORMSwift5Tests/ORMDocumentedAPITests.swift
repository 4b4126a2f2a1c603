// SQLiteORM-Swift's documented API beyond the README, in Swift 5 mode, as its users write it.
import Foundation
import Testing
import StrataORM

struct Specimen: Initializable {
    var id = 0
    var name = ""
    var score = 0
    var ratio = 0.0
    var note: String?
    var flag = false
    var small: Int8 = 0
    var big: UInt64 = 0
    var data = Data()
    var date = Date(timeIntervalSince1970: 0)
    var maybeInt: Int?
}

func makeSpecimenStorage() throws -> Storage {
    let table = Table<Specimen>(
        name: "probes",
        columns: Column(name: "id", keyPath: \Specimen.id, constraints: primaryKey().autoincrement(), notNull()),
        Column(name: "name", keyPath: \Specimen.name, constraints: notNull().onConflict().abort(), unique().onConflict().replace()),
        Column(name: "score", keyPath: \Specimen.score, constraints: notNull()),
        Column(name: "ratio", keyPath: \Specimen.ratio),
        Column(name: "note", keyPath: \Specimen.note),
        Column(name: "flag", keyPath: \Specimen.flag),
        Column(name: "small", keyPath: \Specimen.small),
        Column(name: "big", keyPath: \Specimen.big),
        Column(name: "data", keyPath: \Specimen.data),
        Column(name: "date", keyPath: \Specimen.date),
        Column(name: "maybe_int", keyPath: \Specimen.maybeInt))
    let storage = try Storage(filename: ":memory:", tables: [table])
    _ = try storage.syncSchema(preserve: false)
    return storage
}

func seedSpecimens(_ storage: Storage) throws {
    try storage.insert(
        Specimen(
            id: 0, name: "a", score: 1, ratio: 0.5, note: nil, flag: true, small: -3, big: UInt64(Int64.max), data: Data([1, 2]),
            date: Date(timeIntervalSince1970: 100), maybeInt: nil))
    try storage.insert(
        object: Specimen(
            id: 0, name: "b", score: 2, ratio: 1.5, note: "x", flag: false, small: 4, big: 7, data: Data(), date: Date(timeIntervalSince1970: 200), maybeInt: 5)
    )
    try storage.insert(
        Specimen(
            id: 0, name: "c", score: 3, ratio: 2.5, note: "y", flag: true, small: 0, big: 0, data: Data([9]), date: Date(timeIntervalSince1970: 300),
            maybeInt: 6))
}

@Suite struct ORMDocumentedAPITests {
    @Test func constraintChainsCompile() throws {
        let chains: [ConstraintBuilder] = [
            primaryKey(), primaryKey().autoincrement(), primaryKey().asc(), primaryKey().desc(),
            primaryKey().onConflict().replace(), primaryKey().onConflict().rollback(), primaryKey().onConflict().abort(),
            primaryKey().onConflict().fail(), primaryKey().onConflict().ignore(), primaryKey().asc().autoincrement(),
            notNull(), notNull().onConflict().replace(), unique(), unique().onConflict().ignore(), defaultValue(3)
        ]
        #expect(chains.count == 15)
        _ = Table<UserType>(name: "t", elements: [Column(name: "id", keyPath: \UserType.id, constraints: primaryKey())])
        let storage = try Storage(
            filename: "",
            Table<UserType>(
                name: "t", Column(name: "id", keyPath: \UserType.id, constraints: primaryKey().onConflict().replace()),
                Column(name: "name", keyPath: \UserType.name, constraints: unique().onConflict().replace())))
        _ = try storage.syncSchema(preserve: false)
        // insert leaves out the primary key (SQLite assigns it); the UNIQUE ... REPLACE name
        // replaces the first row.
        try storage.insert(UserType(id: 0, name: "x"))
        #expect(try storage.insert(UserType(id: 0, name: "x")) == 2)
        let all: [UserType] = try storage.getAll()
        #expect(all.map { $0.id } == [2])
    }

    @Test func operators() throws {
        let storage = try makeSpecimenStorage()
        try seedSpecimens(storage)
        let base = try storage.getAll(all: Specimen.self, where_(\Specimen.score == 2)).map { $0.name }
        #expect(base == ["b"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.score != 2), orderBy(\Specimen.id)).map { $0.name } == ["a", "c"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.score < 2)).map { $0.name } == ["a"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.score <= 2), orderBy(\Specimen.id)).map { $0.name } == ["a", "b"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.score > 2)).map { $0.name } == ["c"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.score >= 3)).map { $0.name } == ["c"])
        #expect(try storage.getAll(all: Specimen.self, where_(2 < \Specimen.score)).map { $0.name } == ["c"])
        #expect(try storage.getAll(all: Specimen.self, where_(2 == \Specimen.score)).map { $0.name } == ["b"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.score > 1 && \Specimen.score < 3)).map { $0.name } == ["b"])
        #expect(
            try storage.getAll(all: Specimen.self, where_(\Specimen.score == 1 || \Specimen.score == 3), orderBy(\Specimen.id)).map { $0.name } == ["a", "c"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.score + 1 == 3)).map { $0.name } == ["b"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.score - 1 == 0)).map { $0.name } == ["a"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.score * 2 == 6)).map { $0.name } == ["c"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.score / 2 == 1), orderBy(\Specimen.id)).map { $0.name } == ["b", "c"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.score % 2 == 0)).map { $0.name } == ["b"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.ratio > 1.0), orderBy(\Specimen.id)).map { $0.name } == ["b", "c"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.name == "a")).map { $0.name } == ["a"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.flag == true), orderBy(\Specimen.id)).map { $0.name } == ["a", "c"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.score == \Specimen.small + 2)).map { $0.name } == [])
        #expect(try storage.getAll(all: Specimen.self, where_(like(\Specimen.name, "b%"))).map { $0.name } == ["b"])
        #expect(try storage.getAll(all: Specimen.self, where_((\Specimen.name).like("c"))).map { $0.name } == ["c"])
        #expect(try storage.getAll(all: Specimen.self, where_((\Specimen.score).in([1, 3])), orderBy(\Specimen.id)).map { $0.name } == ["a", "c"])
        #expect(try storage.getAll(all: Specimen.self, where_((\Specimen.score).notIn([1, 3]))).map { $0.name } == ["b"])
        #expect(try storage.getAll(all: Specimen.self, where_(`in`(\Specimen.score, [2]))).map { $0.name } == ["b"])
        #expect(try storage.getAll(all: Specimen.self, where_(notIn(\Specimen.score, [2])), orderBy(\Specimen.id)).map { $0.name } == ["a", "c"])
        #expect(try storage.getAll(all: Specimen.self, where_(1.0 < \Specimen.ratio), orderBy(\Specimen.id)).map { $0.name } == ["b", "c"])
        #expect(try storage.getAll(all: Specimen.self, where_("a" == \Specimen.name)).map { $0.name } == ["a"])
        #expect(try storage.getAll(all: Specimen.self, where_(3 <= \Specimen.score)).map { $0.name } == ["c"])
        #expect(try storage.getAll(all: Specimen.self, where_(2 > \Specimen.score)).map { $0.name } == ["a"])
        #expect(try storage.getAll(all: Specimen.self, where_(2 >= \Specimen.score), orderBy(\Specimen.id)).map { $0.name } == ["a", "b"])
        #expect(try storage.getAll(all: Specimen.self, where_(2 != \Specimen.score), orderBy(\Specimen.id)).map { $0.name } == ["a", "c"])
        #expect(try storage.getAll(all: Specimen.self, where_(1 + \Specimen.score == 4)).map { $0.name } == ["c"])
        #expect(try storage.getAll(all: Specimen.self, where_(10 - \Specimen.score == 9)).map { $0.name } == ["a"])
        #expect(try storage.getAll(all: Specimen.self, where_(2 * \Specimen.score == 4)).map { $0.name } == ["b"])
        #expect(try storage.getAll(all: Specimen.self, where_(6 / \Specimen.score == 2)).map { $0.name } == ["c"])
        #expect(try storage.getAll(all: Specimen.self, where_(7 % \Specimen.score == 1), orderBy(\Specimen.id)).map { $0.name } == ["b", "c"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.score + \Specimen.small == 4), orderBy(\Specimen.id)).map { $0.name } == [])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.flag && \Specimen.score > 1)).map { $0.name } == ["c"])
        #expect(try storage.getAll(all: Specimen.self, where_(!\Specimen.flag)).map { $0.name } == ["b"])
        // Optional columns against nil and against values.
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.note == nil)).map { $0.name } == ["a"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.note != nil), orderBy(\Specimen.id)).map { $0.name } == ["b", "c"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.note == "x")).map { $0.name } == ["b"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.maybeInt > 5)).map { $0.name } == ["c"])
        let optionalValue: String? = "y"
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.note == optionalValue)).map { $0.name } == ["c"])
        let noValue: String? = nil
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.note == noValue)).map { $0.name } == ["a"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.note != noValue), orderBy(\Specimen.id)).map { $0.name } == ["b", "c"])
        #expect(try storage.getAll(all: Specimen.self, where_(nil == \Specimen.note)).map { $0.name } == ["a"])
        #expect(try storage.getAll(all: Specimen.self, where_(\Specimen.note == nil && \Specimen.score == 1)).map { $0.name } == ["a"])
    }

    @Test func getAllForms() throws {
        let storage = try makeSpecimenStorage()
        try seedSpecimens(storage)
        let all: [Specimen] = try storage.getAll()
        #expect(all.count == 3)
        let limited: [Specimen] = try storage.getAll(orderBy(\Specimen.id), limit(1, offset: 1))
        #expect(limited.map { $0.name } == ["b"])
        let desc: [Specimen] = try storage.getAll(orderBy(\Specimen.score).desc(), limit(2))
        #expect(desc.map { $0.name } == ["c", "b"])
        let asc: [Specimen] = try storage.getAll(orderBy(\Specimen.score).asc())
        #expect(asc.map { $0.name } == ["a", "b", "c"])
        let withAll = try storage.getAll(all: Specimen.self)
        #expect(withAll.count == 3)
        var seen = 0
        try storage.forEach(Specimen.self) { _ in seen += 1 }
        #expect(seen == 3)
    }

    @Test func aggregates() throws {
        let storage = try makeSpecimenStorage()
        #expect(try storage.avg(\Specimen.score) == nil)
        #expect(try storage.sum(\Specimen.score) == nil)
        #expect(try storage.total(\Specimen.score) == 0)
        #expect(try storage.max(\Specimen.score) == nil)
        try seedSpecimens(storage)
        #expect(try storage.avg(\Specimen.score) == 2)
        #expect(try storage.avg(\Specimen.score, where_(\Specimen.score > 1)) == 2.5)
        #expect(try storage.count(\Specimen.note) == 2)
        #expect(try storage.count(\Specimen.note, where_(\Specimen.score > 2)) == 1)
        #expect(try storage.count(all: Specimen.self) == 3)
        #expect(try storage.groupConcat(\Specimen.name) == "a,b,c")
        #expect(try storage.groupConcat(\Specimen.name, separator: "-") == "a-b-c")
        #expect(try storage.groupConcat(\Specimen.name, separator: "-", where_(\Specimen.score > 1)) == "b-c")
        #expect(try storage.max(\Specimen.score) == 3)
        #expect(try storage.min(\Specimen.score) == 1)
        #expect(try storage.max(\Specimen.note) == "y")
        #expect(try storage.min(\Specimen.maybeInt) == 5)
        #expect(try storage.sum(\Specimen.score) == 6)
        #expect(try storage.total(\Specimen.ratio) == 4.5)
        #expect(try storage.max(\Specimen.score, where_(\Specimen.score < 3)) == 2)
    }

    @Test func selects() throws {
        let storage = try makeSpecimenStorage()
        try seedSpecimens(storage)
        let ids: [Int] = try storage.select(\Specimen.id, orderBy(\Specimen.id))
        #expect(ids == [1, 2, 3])
        let pairs = try storage.select(\Specimen.id, \Specimen.name, orderBy(\Specimen.id))
        #expect(pairs.map { $0.1 } == ["a", "b", "c"])
        let triples = try storage.select(\Specimen.id, \Specimen.name, \Specimen.note, where_(\Specimen.id == 2))
        #expect(triples.first?.2 == "x")
        let counts = try storage.select(count(\Specimen.id), from(Specimen.self))
        #expect(counts == [3])
        let avgs = try storage.select(avg(\Specimen.score), from(Specimen.self))
        #expect(avgs == [2.0])
    }

    @Test func updateAllDeleteAll() throws {
        let storage = try makeSpecimenStorage()
        try seedSpecimens(storage)
        try storage.update(all: Specimen.self, set(assign(\Specimen.score, 10), assign(\Specimen.note, nil)), where_(\Specimen.id == 1))
        let one: Specimen? = try storage.get(id: 1)
        #expect(one?.score == 10)
        #expect(one?.note == nil)
        try storage.update(all: Specimen.self, set(assign(\Specimen.score, \Specimen.score + 1)))
        #expect(try storage.sum(\Specimen.score) == 11 + 3 + 4)
        try storage.delete(all: Specimen.self, where_(\Specimen.score > 10))
        #expect(try storage.count(all: Specimen.self) == 2)
        try storage.delete(all: Specimen.self)
        #expect(try storage.count(all: Specimen.self) == 0)
    }

    @Test func transactionsAndCRUD() throws {
        let storage = try makeSpecimenStorage()
        try storage.beginTransaction()
        try seedSpecimens(storage)
        try storage.commit()
        #expect(try storage.count(all: Specimen.self) == 3)
        // The closure's error comes out of transaction { } unchanged, after the rollback.
        #expect(throws: Error.invalidQuery("x")) {
            try storage.transaction { () throws -> Void in
                try storage.delete(all: Specimen.self)
                throw Error.invalidQuery("x")
            }
        }
        #expect(try storage.count(all: Specimen.self) == 3)
        try storage.transaction { try storage.delete(all: Specimen.self, where_(\Specimen.id == 3)) }
        #expect(try storage.count(all: Specimen.self) == 2)
        var p: Specimen? = try storage.get(id: 2)
        p?.name = "bb"
        try storage.update(p!)
        try storage.replace(object: Specimen(id: 2, name: "bbb", score: 2))
        let fetched: Specimen? = try storage.get(id: 2)
        #expect(fetched?.name == "bbb")
        try storage.delete(object: fetched!)
        #expect(try storage.tableExists(with: "probes"))
        #expect(try !storage.tableExists(with: "nope"))
    }

    @Test func valueTypesRoundTrip() throws {
        let storage = try makeSpecimenStorage()
        try seedSpecimens(storage)
        let a: Specimen? = try storage.get(id: 1)
        #expect(a?.big == UInt64(Int64.max))
        #expect(a?.small == -3)
        #expect(a?.data == Data([1, 2]))
        #expect(a?.date == Date(timeIntervalSince1970: 100))
        #expect(a?.flag == true)
        #expect(a?.maybeInt == nil)
    }

    @Test func storageInitialisers() throws {
        let types = Table<UserType>(
            name: "user_types", Column(name: "id", keyPath: \UserType.id, constraints: primaryKey()),
            Column(name: "name", keyPath: \UserType.name))
        _ = try Storage(filename: "")
        _ = try SafeStorage(filename: "")
        _ = try Storage(filename: ":memory:", types)
        _ = try Storage(filename: ":memory:", tables: types)
        _ = try Storage(filename: ":memory:", tables: [types])
        let safe = try SafeStorage(filename: "", types)
        #expect(try safe.syncSchema(preserve: false).get() == ["user_types": .newTableCreated])
        _ = try SafeStorage(filename: "", tables: [types])
        #expect((try? safe.tableExists(with: "user_types").get()) == true)
    }

    @Test func errorsAreNamed() throws {
        let storage = try makeSpecimenStorage()
        // Upstream's idiom: `catch let error as Error` names the ORM's error type.
        do {
            let _: [User] = try storage.getAll()
            Issue.record("expected an error")
        } catch let error as Error {
            #expect(error == .typeIsNotMapped(type: "User"))
            #expect(error.description.hasPrefix("Type User is not mapped"))
        }
        #expect(throws: ORMError.typeIsNotMapped(type: "User")) { let _: User? = try storage.get(id: 1) }
    }
}

@Suite struct OutOfRangeValueTests {
    @Test func outOfRangeIntegersThrowNotCrash() throws {
        let storage = try makeSpecimenStorage()
        var huge = Specimen()
        huge.big = UInt64.max
        huge.name = "huge"
        let id = try storage.insert(huge)
        let back: Specimen? = try storage.get(id: id)
        #expect(back?.big == UInt64.max)
        try storage.connection.execute("INSERT INTO probes (name, score, small, big) VALUES ('x', 1, 1000, -1)")
        #expect(throws: (any Swift.Error).self) { let _: [Specimen] = try storage.getAll(where_(\Specimen.name == "x")) }
        #expect(throws: (any Swift.Error).self) { try storage.max(\Specimen.small) }
        // UInt64 is stored by bit pattern, so UInt64.max round-trips (and reads back from -1).
        #expect(try storage.select(\Specimen.big, where_(\Specimen.name == "x")) == [UInt64.max])
        // Odd limits are SQLite's business, never a crash: LIMIT -1 is no limit, and a negative
        // OFFSET counts as none, so both rows come back.
        #expect(throws: (any Swift.Error).self) { let _: [Specimen] = try storage.getAll(all: Specimen.self, limit(-1, offset: Int.min)) }
        try storage.connection.execute("DELETE FROM probes WHERE name = 'x'")
        let unlimited: [Specimen] = try storage.getAll(all: Specimen.self, limit(-1, offset: Int.min))
        #expect(unlimited.map(\.name) == ["huge"])
    }
}

@Suite struct BadInputErrorTests {
    struct Loose: Initializable {
        var a = 0
        var b: Float = 0
        var c: Int32?
    }

    @Test func badInputThrowsNamedErrors() throws {
        let storage = try makeSpecimenStorage()
        try seedSpecimens(storage)
        #expect(throws: Error.primaryKeyCountMismatch(table: "probes", expected: 1, received: 2)) {
            let _: Specimen? = try storage.get(id: 1, 2)
        }
        #expect(throws: Error.self) { let _: [Specimen] = try storage.getAll(where_(\User.id == 1)) }
        #expect(throws: Error.self) { try storage.update(all: Specimen.self, set(assign(\User.id, 1))) }
        #expect(throws: Error.typeIsNotMapped(type: "User")) { try storage.insert(User()) }
        #expect(throws: Error.self) { let _: [Int] = try storage.select(count()) }
        #expect(throws: Error.self) { try storage.delete(all: Specimen.self, limit(1)) }

        let loose = try Storage(
            filename: "",
            Table<Loose>(
                name: "loose", Column(name: "a", keyPath: \Loose.a),
                Column(name: "b", keyPath: \Loose.b),
                Column(name: "c", keyPath: \Loose.c)))
        _ = try loose.syncSchema(preserve: true)
        try loose.insert(Loose(a: 1, b: 1.5, c: 3))
        #expect(throws: Error.tableHasNoPrimaryKey(table: "loose")) { let _: Loose? = try loose.get(id: 1) }
        #expect(throws: Error.tableHasNoPrimaryKey(table: "loose")) { try loose.update(Loose()) }
        let all: [Loose] = try loose.getAll()
        #expect(all.first?.b == 1.5 && all.first?.c == 3)
        try loose.connection.execute("UPDATE loose SET c = 5000000000")
        #expect(throws: Error.self) { let _: [Loose] = try loose.getAll() }
        #expect(throws: Error.self) { _ = try Storage(filename: "", Table<Loose>(name: "x")) }
        #expect(throws: Error.self) {
            _ = try Storage(filename: "", Table<Loose>(name: "x", Column(name: "a", keyPath: \Loose.a), Column(name: "a", keyPath: \Loose.b)))
        }
    }
}

@Suite struct URLConditionTests {
    struct Link: Initializable {
        var id = 0
        var url = URL(string: "https://example.com")!
        var mirror: URL?
        var weight: Float = 0
        var tiny: UInt8 = 0
    }

    @Test func urlAndSmallTypesInConditions() throws {
        let storage = try Storage(
            filename: "",
            Table<Link>(
                name: "links",
                Column(name: "id", keyPath: \Link.id, constraints: primaryKey()),
                Column(name: "url", keyPath: \Link.url),
                Column(name: "mirror", keyPath: \Link.mirror),
                Column(name: "weight", keyPath: \Link.weight),
                Column(name: "tiny", keyPath: \Link.tiny)))
        _ = try storage.syncSchema(preserve: true)
        let target = URL(string: "https://swift.org")!
        try storage.insert(Link(id: 0, url: target, mirror: nil, weight: 0.5, tiny: 200))
        try storage.insert(Link())
        let found: [Link] = try storage.getAll(where_(\Link.url == target))
        #expect(found.map { $0.id } == [1])
        let mirrored: [Link] = try storage.getAll(where_(\Link.mirror == target))
        #expect(mirrored.isEmpty)
        let heavy: [Link] = try storage.getAll(where_(\Link.weight > Float(0.25) && \Link.tiny == UInt8(200)))
        #expect(heavy.map { $0.id } == [1])
        try storage.update(all: Link.self, set(assign(\Link.mirror, target)), where_(\Link.id == 2))
        #expect(try storage.select(\Link.mirror, where_(\Link.mirror != nil)) == [target])
    }
}

@Suite struct CompositeAndTextKeyTests {
    struct Visit: Initializable {
        var userId: Int64 = 0
        var day = ""
        var count = 0
    }

    @Test func compositeAndTextKeys() throws {
        let storage = try Storage(
            filename: "",
            tables: Table<Visit>(
                name: "visits",
                columns: Column(name: "user_id", keyPath: \Visit.userId, constraints: primaryKey()),
                Column(name: "day", keyPath: \Visit.day, constraints: primaryKey()),
                Column(name: "count", keyPath: \Visit.count, constraints: notNull(), defaultValue(0))))
        #expect(try storage.syncSchema(preserve: true) == ["visits": .newTableCreated])
        try storage.replace(Visit(userId: 1, day: "mon", count: 2))
        try storage.replace(object: Visit(userId: 1, day: "tue", count: 3))
        let visit: Visit? = try storage.get(id: 1, "tue")
        #expect(visit?.count == 3)
        let byInt64: Visit? = try storage.get(id: Int64(1), "mon")
        #expect(byInt64?.count == 2)
        var changed = visit!
        changed.count = 9
        try storage.update(object: changed)
        #expect(try storage.sum(\Visit.count) == 11)
        try storage.delete(changed)
        #expect(try storage.count(all: Visit.self) == 1)
        #expect(try storage.groupConcat(\Visit.day) == "mon")
    }
}
