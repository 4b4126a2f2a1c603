import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// `split(text, separator)`: one row per part, numbered from 1.
let splitFunction = TableValuedFunction(name: "split", columns: ["value", "ordinal"], parameters: ["text", "separator"]) { arguments in
    guard let text = arguments[0].textValue else { return [] }
    let separator = arguments[1].textValue ?? ","
    return text.components(separatedBy: separator).enumerated().map { [$1, $0 + 1] }
}

/// `series(start, stop, step)`: integers from start to stop inclusive; step defaults to 1.
let seriesFunction = TableValuedFunction(name: "series", columns: ["value"], parameters: ["start", "stop", "step"]) { arguments in
    let start = arguments[0].integerValue ?? 0, stop = arguments[1].integerValue ?? start
    let step = arguments[2].integerValue ?? 1
    guard step != 0 else { throw SeriesError.zeroStep }
    return stride(from: start, through: stop, by: Int(step)).lazy.map { [$0] as [Bindable?] }
}

enum SeriesError: Error, CustomStringConvertible {
    case zeroStep
    var description: String { "series: step must not be zero" }
}

/// Counts what a source produced, from the connection's thread and the test's.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add(_ count: Int = 1) { lock.withLock { value += count } }
    var count: Int { lock.withLock { value } }
}

/// The integers 1...1000 with their squares, filtered in Swift on `n` by EQ and range constraints.
struct NumbersSource: VirtualTableSource, Sendable {
    let produced: Counter
    var columns: [String] { ["n", "square"] }

    func bestIndex(_ query: VirtualTableQuery) -> IndexPlan? {
        var plan = IndexPlan()
        var names: [String] = []
        for (index, constraint) in query.constraints.enumerated() where constraint.column == 0 && constraint.isUsable {
            let name: String
            switch constraint.operator {
            case .equal: name = "eq"
            case .greaterThan: name = "gt"
            case .greaterThanOrEqual: name = "ge"
            case .lessThan: name = "lt"
            case .lessThanOrEqual: name = "le"
            case .other: continue
            }
            plan.use(index)
            names.append(name)
        }
        plan.number = Int32(plan.arguments.count)
        plan.name = names.isEmpty ? nil : names.joined(separator: ",")
        plan.estimatedRows = names.contains("eq") ? 1 : names.isEmpty ? 1000 : 100
        plan.estimatedCost = Double(plan.estimatedRows)
        if query.orderBy.count == 1, query.orderBy[0].column == 0, !query.orderBy[0].descending { plan.orderByConsumed = true }
        return plan
    }

    func rows(for plan: IndexPlan.Chosen, arguments: [BindingValue]) throws -> [[Bindable?]] {
        var lower: Int64 = 1, upper: Int64 = 1000
        let names = plan.name?.split(separator: ",").map(String.init) ?? []
        for (name, argument) in zip(names, arguments) {
            guard let value = argument.integerValue else { return [] }
            switch name {
            case "eq": lower = max(lower, value); upper = min(upper, value)
            case "gt": lower = max(lower, value + 1)
            case "ge": lower = max(lower, value)
            case "lt": upper = min(upper, value - 1)
            default: upper = min(upper, value)
            }
        }
        guard lower <= upper else { return [] }
        produced.add(Int(upper - lower + 1))
        return (lower...upper).map { [$0, $0 * $0] }
    }
}

/// A source whose scan always fails.
struct FailingSource: VirtualTableSource {
    struct Broken: LocalizedError { var errorDescription: String? { "the sensor feed is offline" } }
    var columns: [String] { ["reading"] }
    func bestIndex(_ query: VirtualTableQuery) -> IndexPlan? { IndexPlan() }
    func rows(for plan: IndexPlan.Chosen, arguments: [BindingValue]) throws -> [[Bindable?]] { throw Broken() }
}

/// A source that tells when it is freed.
final class TrackedSource: VirtualTableSource {
    var columns: [String] { ["x"] }
    func bestIndex(_ query: VirtualTableQuery) -> IndexPlan? { IndexPlan() }
    func rows(for plan: IndexPlan.Chosen, arguments: [BindingValue]) throws -> [[Bindable?]] { [[1], [2]] }
}

@Suite struct VirtualTableTests {
    @Test func splitReturnsOneRowPerPart() throws {
        let connection = try Connection()
        try connection.createTableValuedFunction(splitFunction)
        let parts: [String] = try connection.query("SELECT value FROM split('a,b,,c', ',') ORDER BY ordinal")
        #expect(parts == ["a", "b", "", "c"])
        let ordinals: [Int] = try connection.query("SELECT ordinal FROM split(?, ?)", "x - y - z", " - ")
        #expect(ordinals == [1, 2, 3])
        // The parameters are hidden columns: named in WHERE, or read back.
        let viaWhere: [String] = try connection.query("SELECT value FROM split WHERE text = 'p;q' AND separator = ';'")
        #expect(viaWhere == ["p", "q"])
        let echoed: String? = try connection.query("SELECT separator FROM split('a|b', '|') LIMIT 1")
        #expect(echoed == "|")
        let none: Int? = try connection.query("SELECT count(*) FROM split(NULL, ',')")
        #expect(none == 0)
    }

    @Test func rowsAsAnySequenceWhenBranchesDiffer() throws {
        // Branches of different sequence types can only meet as `any Sequence`: the
        // existential initializer takes them, and both branches' rows come out.
        let letters = TableValuedFunction(name: "letters", columns: ["letter"], parameters: ["word", "reversed"]) { arguments in
            let word = Array(arguments[0].textValue ?? "")
            let rows: any Sequence<[Bindable?]> =
                (arguments[1].integerValue ?? 0) != 0
                ? word.reversed().lazy.map { [String($0)] as [Bindable?] }
                : word.map { [String($0)] as [Bindable?] }
            return rows
        }
        let connection = try Connection()
        try connection.createTableValuedFunction(letters)
        let forward: [String] = try connection.query("SELECT letter FROM letters('abc', 0)")
        #expect(forward == ["a", "b", "c"])
        let backward: [String] = try connection.query("SELECT letter FROM letters('abc', 1)")
        #expect(backward == ["c", "b", "a"])
    }

    @Test func seriesWithBoundsAndDefaults() throws {
        let connection = try Connection()
        try connection.createTableValuedFunction(seriesFunction)
        let values: [Int] = try connection.query("SELECT value FROM series(1, 10, 3)")
        #expect(values == [1, 4, 7, 10])
        let defaults: [Int] = try connection.query("SELECT value FROM series(5, 7)")
        #expect(defaults == [5, 6, 7])
        let total: Int? = try connection.query("SELECT sum(value) FROM series(1, 100000)")
        #expect(total == 5_000_050_000)
        let down: [Int] = try connection.query("SELECT value FROM series(3, 1, -1)")
        #expect(down == [3, 2, 1])
    }

    @Test func aTableValuedFunctionJoinsWithATable() throws {
        let connection = try Connection()
        try connection.createTableValuedFunction(splitFunction)
        try connection.execute(
            """
            CREATE TABLE post(id INTEGER PRIMARY KEY, title TEXT, tags TEXT);
            INSERT INTO post VALUES (1, 'Swift', 'lang,apple'), (2, 'SQLite', 'db,c'), (3, 'Both', 'lang,db');
            """)
        let pairs: [String] = try connection.query(
            """
            SELECT post.title || ':' || tag.value FROM post, split(post.tags, ',') AS tag
            WHERE tag.value = 'db' ORDER BY post.id
            """)
        #expect(pairs == ["SQLite:db", "Both:db"])
        let counts: [Int] = try connection.query("SELECT count(*) FROM post JOIN split(post.tags) AS t GROUP BY post.id ORDER BY post.id")
        #expect(counts == [2, 2, 2])
    }

    @Test func bestIndexPushesFiltersDown() throws {
        let produced = Counter()
        let connection = try Connection()
        try connection.createVirtualTable(named: "numbers", source: NumbersSource(produced: produced))
        /// The details of `sql`'s query plan, one a step.
        func plan(_ sql: String) throws -> [String] { try connection.query("EXPLAIN QUERY PLAN " + sql) { $0[3] } }

        #expect(try plan("SELECT square FROM numbers WHERE n >= 10 AND n < 20") == ["SCAN numbers VIRTUAL TABLE INDEX 2:ge,lt"])
        let squares: [Int] = try connection.query("SELECT square FROM numbers WHERE n >= ? AND n < ?", 10, 20)
        #expect(squares == (10..<20).map { $0 * $0 })
        #expect(produced.count == 10)

        #expect(try plan("SELECT * FROM numbers WHERE n = 7") == ["SCAN numbers VIRTUAL TABLE INDEX 1:eq"])
        let seven: Int? = try connection.query("SELECT square FROM numbers WHERE n = 7")
        #expect(seven == 49)
        #expect(produced.count == 11)

        let between: Int? = try connection.query("SELECT count(*) FROM numbers WHERE n > 990 AND n <= 995")
        #expect(between == 5)
        #expect(produced.count == 16)

        // A filter the source does not take (on `square`) is checked by SQLite on every row.
        #expect(try plan("SELECT n FROM numbers WHERE square = 4") == ["SCAN numbers VIRTUAL TABLE INDEX 0:"])
        let two: Int? = try connection.query("SELECT n FROM numbers WHERE square = 4")
        #expect(two == 2)
        #expect(produced.count == 1016)

        // The source's rows come ordered by n, so SQLite does not sort.
        #expect(try plan("SELECT n FROM numbers WHERE n < 5 ORDER BY n") == ["SCAN numbers VIRTUAL TABLE INDEX 1:lt"])
    }

    @Test func aVirtualTableJoinsWithItsFilterFromTheOuterTable() throws {
        let produced = Counter()
        let connection = try Connection()
        try connection.createVirtualTable(named: "numbers", source: NumbersSource(produced: produced))
        try connection.execute("CREATE TABLE wanted(n INTEGER); INSERT INTO wanted VALUES (3), (30), (300)")
        let squares: [Int] = try connection.query("SELECT numbers.square FROM wanted JOIN numbers ON numbers.n = wanted.n ORDER BY wanted.n")
        #expect(squares == [9, 900, 90_000])
        #expect(produced.count == 3)
    }

    @Test func aThrowingSourceFailsTheStatementWithItsMessage() throws {
        let connection = try Connection()
        try connection.createVirtualTable(named: "sensor", source: FailingSource())
        try connection.createTableValuedFunction(seriesFunction)
        let error = sqliteError { let _: [Double] = try connection.query("SELECT reading FROM sensor") }
        #expect(error?.message == "the sensor feed is offline")
        let stepError = sqliteError { let _: [Int] = try connection.query("SELECT value FROM series(1, 10, 0)") }
        #expect(stepError?.message == "series: step must not be zero")
        // The connection is still usable.
        let ok: [Int] = try connection.query("SELECT value FROM series(1, 2)")
        #expect(ok == [1, 2])
    }

    @Test func aRefusedPlanFailsClearly() throws {
        struct Picky: VirtualTableSource {
            var columns: [String] { ["x"] }
            func bestIndex(_ query: VirtualTableQuery) -> IndexPlan? { query.constraints.isEmpty ? nil : IndexPlan() }
            func rows(for plan: IndexPlan.Chosen, arguments: [BindingValue]) throws -> [[Bindable?]] { [[1]] }
        }
        let connection = try Connection()
        try connection.createVirtualTable(named: "picky", source: Picky())
        #expect(sqliteError { let _: Int? = try connection.query("SELECT x FROM picky") } != nil)
        let one: Int? = try connection.query("SELECT x FROM picky WHERE x = 1")
        #expect(one == 1)
    }

    @Test func everythingRegisteredIsReleasedOnClose() throws {
        weak var weakSource: TrackedSource?
        do {
            let source = TrackedSource()
            weakSource = source
            let connection = try Connection()
            try connection.createVirtualTable(named: "tracked", source: source)
            try connection.createTableValuedFunction(splitFunction)
            let count: Int? = try connection.query("SELECT count(*) FROM tracked")
            #expect(count == 2)
            #expect(weakSource != nil)
        }
        #expect(weakSource == nil)
    }

    @Test func replacingOrRemovingReleasesTheOldSource() throws {
        weak var weakSource: TrackedSource?
        let connection = try Connection()
        do {
            let source = TrackedSource()
            weakSource = source
            try connection.createVirtualTable(named: "tracked", source: source)
            let _: Int? = try connection.query("SELECT count(*) FROM tracked")
        }
        try connection.removeVirtualTable(named: "tracked")
        // SQLite disconnects the removed table when the connection next prepares a statement.
        #expect(sqliteError { let _: Int? = try connection.query("SELECT count(*) FROM tracked") } != nil)
        #expect(weakSource == nil)
    }

    @Test func aDatabaseRegistersOnEveryConnectionNowAndLater() async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("db.sqlite"))
        try database.executeWrite { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x)") }
        // A reader opened before the registration.
        let before: Int? = try database.executeRead { try $0.query("SELECT count(*) FROM t") }
        #expect(before == 0)
        let produced = Counter()
        try database.createTableValuedFunction(seriesFunction)
        try database.createVirtualTable(named: "numbers", source: NumbersSource(produced: produced))

        let onWriter: Int? = try database.executeWrite { try $0.query("SELECT sum(value) FROM series(1, 4)") }
        #expect(onWriter == 10)
        // Several readers at once, the first reused and the others opened now.
        let sums = try await withThrowingTaskGroup(of: Int.self) { group in
            for bound in 1...4 {
                group.addTask {
                    try await database.read { connection in
                        let value: Int? = try connection.query("SELECT sum(value) FROM series(1, ?)", bound)
                        let square: Int? = try connection.query("SELECT square FROM numbers WHERE n = ?", bound)
                        return (value ?? 0) + (square ?? 0)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }.sorted()
        }
        #expect(sums == [1 + 1, 3 + 4, 6 + 9, 10 + 16])
        let reader: Int? = try database.executeRead { try $0.query("SELECT count(*) FROM series(1, 3)") }
        #expect(reader == 3)
    }

    @Test func theREADMEExample() async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("db.sqlite"))
        let series = TableValuedFunction(name: "series", columns: ["value"], parameters: ["start", "stop", "step"]) { arguments in
            let start = arguments[0].integerValue ?? 0, stop = arguments[1].integerValue ?? start
            return stride(from: start, through: stop, by: Int(arguments[2].integerValue ?? 1)).map { [$0] }
        }
        try database.createTableValuedFunction(series)
        let total: Int? = try await database.read { try $0.query("SELECT sum(value) FROM series(1, 100)") }
        #expect(total == 5050)

        let connection = try makeCarsConnection()
        let dumpURL = directory.url.appendingPathComponent("backup.sql")
        try connection.dump(to: dumpURL)
        let copy = try Connection(storageLocation: .onDisk(directory.path("copy.db")))
        try copy.restore(fromDumpAt: dumpURL)
        #expect(try copy.query("SELECT count(*) FROM cars") as Int? == 4)
    }
}
