import Foundation
import Strata
import StrataCore
import StrataSwiftly
import StrataVectors
import Testing

/// Every public error of every module is a `LocalizedError`, so `localizedDescription` says what
/// went wrong (Foundation's default is "The operation could not be completed").
@Suite struct PublicErrorsAreLocalizedTests {
    /// Every public error type in Sources, checked in: a new one fails here until it is listed,
    /// and it is listed only with its `LocalizedError` conformance.
    static let publicErrors: Set<String> = [
        "ChangesetError", "DatabaseMigratorError", "DatabaseShutdownError", "DateOutOfRangeError", "DumpError",
        "ExpressibleByRowError", "ExtensionError", "MigratorError", "ORMError", "ObservationError", "PostgresHubError",
        "RecordError", "RecordSchemaError", "ReplicationError", "SQLFragmentError", "SQLiteError", "SQLiteLibraryError",
        "SchemaMigrationError", "SyncError", "SyncHubStoreUnavailable", "TableDescriptionError", "TableRebuildError",
        "VectorError", "VectorIndexError"
    ]

    /// Types that meant the same were folded (issue 83): their former names are aliases, so code
    /// that catches or builds them by those names compiles and matches as before.
    @Test func formerNamesAreTheTypesTheyWereFoldedInto() {
        #expect(DatabaseError.self == SQLiteError.self)
        #expect(LitestreamReplicaError.self == ReplicationError.self)
        #expect(ReplicationSafetyError.self == ReplicationError.self)
        let refusal: any Error = LitestreamReplicaError.writeRefused(replicaURL: "s3://b/app.db")
        #expect((refusal as? ReplicationError) == .writeRefused(replicaURL: "s3://b/app.db"))
    }

    /// The public type names in `text` declared as errors (`public enum X: Error, ...`), read by
    /// Unicode scalars from each declaration line.
    static func declaredErrors(in text: String) -> [String] {
        var names: [String] = []
        for line in text.split(whereSeparator: { $0 == "\n" }) {
            let scalars = String(line).unicodeScalars
            let words = String(String.UnicodeScalarView(scalars.map { CharacterSet.alphanumerics.contains($0) || $0 == "." ? $0 : " " }))
                .split(separator: " ").map(String.init)
            guard words.first == "public", let kind = words.firstIndex(where: { ["enum", "struct", "class", "actor"].contains($0) }),
                kind + 1 < words.count, kind <= 2
            else { continue }
            let conformances = String(line).split(separator: ":", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            let listed = conformances.split(separator: "{").first.map(String.init) ?? ""
            let types = listed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if types.contains("Error") || types.contains("Swift.Error") { names.append(words[kind + 1]) }
        }
        return names
    }

    @Test func everyPublicErrorInSourcesIsListedAndLocalized() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
        var declared: Set<String> = []
        var localized: Set<String> = []
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            declared.formUnion(Self.declaredErrors(in: text))
            for name in Self.publicErrors where text.contains("extension \(name): LocalizedError") {
                localized.insert(name)
            }
            // Or in the declaration's own list of conformances.
            for line in text.split(whereSeparator: { $0 == "\n" }) where line.contains("LocalizedError") {
                localized.formUnion(Self.declaredErrors(in: String(line)))
            }
        }
        #expect(
            declared.subtracting(Self.publicErrors).isEmpty,
            "public errors not listed (make each LocalizedError, then list it): \(declared.subtracting(Self.publicErrors).sorted())")
        #expect(Self.publicErrors.subtracting(declared).isEmpty, "listed errors no longer declared: \(Self.publicErrors.subtracting(declared).sorted())")
        #expect(localized == Self.publicErrors, "not LocalizedError: \(Self.publicErrors.subtracting(localized).sorted())")
    }

    @Test func theErrorsThisTargetSeesDescribeThemselvesInLocalizedDescription() {
        let errors: [any Error] = [
            ChangesetError.generatedColumnsUnsupported(table: "t"), SQLiteError(code: 1, message: "m"), DatabaseError.closed
        ]
        for error in errors {
            #expect(!error.localizedDescription.contains("The operation could not be completed"), "\(error)")
            #expect(error.localizedDescription.count > 5, "\(error)")
        }
        let types: [any LocalizedError.Type] = [
            ChangesetError.self, DatabaseMigratorError.self, DumpError.self, ExpressibleByRowError.self,
            ExtensionError.self, LitestreamReplicaError.self, MigratorError.self, ObservationError.self, SQLFragmentError.self,
            SQLiteError.self, SQLiteLibraryError.self, SchemaMigrationError.self, TableDescriptionError.self, TableRebuildError.self,
            VectorError.self, VectorIndexError.self, ReplicationError.self
        ]
        #expect(types.count == 17)
    }
}
