import Testing
@testable import StrataServer

@Suite struct NamingTests {
    @Test func operationIsTheFirstKeyword() {
        #expect(InstrumentationHandler.operation(of: "  -- note\n /* c */ select 1") == "SELECT")
        #expect(InstrumentationHandler.operation(of: "INSERT INTO t VALUES(1)") == "INSERT")
        #expect(InstrumentationHandler.operation(of: "frobnicate") == "OTHER")
    }
}
