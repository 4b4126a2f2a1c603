import MacroTesting
import SwiftSyntaxMacroExpansion
@testable import StrataRecordsMacros
import Testing

extension Trait where Self == _MacrosTestTrait {
    /// The snapshot setup of this target's suites: `@Record` (conforming the type to `Record`)
    /// and the property markers named `markers`, expanded with four-space indentation; `record:
    /// .never` makes a changed expansion fail the test instead of rewriting the snapshot.
    static func recordMacros(markers: [String]) -> Self {
        var specs = ["Record": MacroSpec(type: RecordMacro.self, conformances: ["Record"])]
        for marker in markers { specs[marker] = MacroSpec(type: RecordPropertyMarkerMacro.self) }
        return .macros(specs, indentationWidth: .spaces(4), record: .never)
    }
}
