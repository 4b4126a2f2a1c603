// Code importing Foundation, Strata and StrataORM together, in Swift 5 mode. A file that imports
// only StrataORM (as ported upstream code does) gets the ORM's `Bindable` and `Statement`; one
// that also imports Strata itself names them by module, as here.
import Foundation
import Strata
import StrataORM
import Testing

/// A custom column type through the ORM's `Bindable`.
private struct Grade: StrataORM.Bindable, ConstructableFromSQLiteValue, Equatable {
    var letter: String

    init(_ letter: String) { self.letter = letter }
    init(sqliteValue: SQLiteValue) { letter = sqliteValue.text }
    func bind(to binder: Binder) -> Int32 { binder.bindText(value: letter) }
    static func sqliteTypeName() -> String { "TEXT" }
}

private struct Pupil: Initializable, Equatable {
    var id = 0
    var grade = Grade("")
}

@Test func bothBindablesByModuleNameInSwift5() throws {
    let storage = try Storage(
        filename: "",
        tables: [
            Table<Pupil>(
                name: "pupils",
                elements: [
                    Column(name: "id", keyPath: \Pupil.id, constraints: primaryKey()),
                    Column(name: "grade", keyPath: \Pupil.grade)
                ])
        ])
    _ = try storage.syncSchema(preserve: false)
    try storage.replace(Pupil(id: 1, grade: Grade("A")))
    let found: [Pupil] = try storage.getAll(where_(\Pupil.grade == Grade("A")))
    #expect(found == [Pupil(id: 1, grade: Grade("A"))])
    // Core's protocols by their full names, on the same connection.
    let arguments: [Strata.Bindable?] = [2, "B"]
    try storage.connection.run("INSERT INTO pupils VALUES(?, ?)", arguments)
    let statement: Strata.Statement = try storage.connection.prepare("SELECT grade FROM pupils WHERE id = 2")
    let grade: String? = try statement.query()
    #expect(grade == "B")
}
