import StrataRecords
import Testing

/// A query the builder cannot run and a ranked row gone before it was read are `RecordError`s:
/// their former types are aliases, so code written against those names compiles and matches.
@Suite struct RecordErrorNamesTests {
    @Test func formerQueryErrorNamesAreRecordError() {
        #expect(RecordQueryError.self == RecordError.self)
        #expect(NearestQueryError.self == RecordError.self)
        let unsupported: any Error = RecordQueryError.unsupported("a limit in an update")
        #expect((unsupported as? RecordError) == .unsupported("a limit in an update"))
        #expect(NearestQueryError.rowChanged(rowID: 7).description.contains("rowid 7"))
        #expect(RecordError.unsupported("say what to change").localizedDescription == "say what to change")
    }
}
