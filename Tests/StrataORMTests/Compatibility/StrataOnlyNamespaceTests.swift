// This file imports Strata but not StrataORM: none of the ORM's global names reach it, so
// `Error` is Swift's protocol and `abs`/`max`/`count` are the standard library's.
import Strata
import StrataSQift
import Testing

private struct LocalError: Error {}

@Suite struct StrataOnlyNamespaceTests {
    @Test func ormNamesDoNotReachStrataOnlyCode() throws {
        let error: any Error = LocalError()
        #expect(error is LocalError)
        #expect(abs(-3) == 3)
        #expect(max(1, 2) == 2)
        // `Bindable` is core's protocol here.
        let bindable: any Bindable = 5
        #expect(bindable.bindingValue == .integer(5))
        let connection = try Connection(storageLocation: .inMemory)
        let value: Int? = try connection.query("SELECT abs(-4)")
        #expect(value == 4)
    }
}
