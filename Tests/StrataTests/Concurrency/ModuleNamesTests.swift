import Foundation
import Strata
import StrataCore
import Testing

/// The core is three modules (StrataKernel, StrataSchema, StrataCore), but code that names a type
/// through the module it imports, `StrataCore.Connection` or `Strata.Database`, as code written
/// before the split did, still compiles and gets the same type.
@Suite struct ModuleNamesTests {
    @Test func typesNamedThroughTheImportedModuleAreTheKernelsAndTheSchemas() throws {
        let connection: StrataCore.Connection = try Strata.Connection(path: ":memory:")
        try connection.execute("CREATE TABLE t(x)")
        let info: StrataCore.TableInfo? = try connection.tableInfoForTableNamed("t")
        #expect(info?.columnNames == ["x"])
        let value: Strata.BindingValue = .text("it's")
        #expect(StrataCore.sqlLiteral(value) == "'it''s'")
        #expect(ObjectIdentifier(StrataCore.Connection.self) == ObjectIdentifier(StrataKernel.Connection.self))
        #expect(StrataCore.SchemaColumnType.self == StrataSchema.SchemaColumnType.self)
    }

    @Test func aDatabaseOpensThroughEitherModuleName() async throws {
        let database = try StrataCore.Database(path: ":memory:")
        let answer: Int? = try await database.read { try $0.query("SELECT 42") }
        #expect(answer == 42)
    }
}
