import Foundation
import StrataSQift
import Strata
import Testing

@Suite("FTS5 wrapping tokenizers that would find themselves")
struct FTS5WrapperRecursionTests {
    /// A wrapper named like the tokenizer it wraps is refused: FTS5 finds tokenizers by name, so
    /// a table saying `tokenize='unicode61'` recursed until the stack overflowed.
    @Test func aWrapperNamedLikeItsWrappedTokenizerIsRefused() throws {
        let db = try Connection(storageLocation: .inMemory)
        for (name, base) in [
            ("unicode61", FTS5Tokenizer.unicode61()), ("UNICODE61", .porter(.unicode61())),
            ("porter", .porter(.ascii)), ("mine", .custom(name: "Mine")), ("ascii", .custom(name: "porter", arguments: ["ascii"]))
        ] {
            #expect(throws: SQLiteError.self, "\(name)") { try db.registerFTS5Tokenizer(named: name, wrapping: base) { token, emit in emit(token) } }
        }
        // The built-in tokenizer is still itself.
        try db.createFTS5Table("docs", columns: ["body"], options: FTS5Options(tokenizer: .unicode61()))
        try db.run("INSERT INTO docs(body) VALUES ('Café au lait')")
        #expect(try db.query("SELECT count(*) FROM docs WHERE docs MATCH 'cafe'") as Int64? == 1)
    }

    /// Two wrappers that wrap each other by name fail the table's creation instead of recursing.
    @Test func wrappersThatWrapEachOtherFailInsteadOfRecursing() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.registerFTS5Tokenizer(named: "first", wrapping: .custom(name: "second")) { token, emit in emit(token) }
        try db.registerFTS5Tokenizer(named: "second", wrapping: .custom(name: "first")) { token, emit in emit(token) }
        #expect(throws: SQLiteError.self) {
            try db.createFTS5Table("loop", columns: ["body"], options: FTS5Options(tokenizer: .custom(name: "first")))
        }
        try db.registerFTS5Tokenizer(named: "stems", wrapping: .porter(.custom(name: "stems2"))) { token, emit in emit(token) }
        try db.registerFTS5Tokenizer(named: "stems2", wrapping: .custom(name: "stems")) { token, emit in emit(token) }
        #expect(throws: SQLiteError.self) {
            try db.createFTS5Table("loop2", columns: ["body"], options: FTS5Options(tokenizer: .custom(name: "stems")))
        }
        // The connection still works, and a sound wrapper still registers.
        try db.registerFTS5Tokenizer(named: "plain", wrapping: .unicode61()) { token, emit in emit(token) }
        try db.createFTS5Table("fine", columns: ["body"], options: FTS5Options(tokenizer: .custom(name: "plain")))
        try db.run("INSERT INTO fine(body) VALUES ('hello world')")
        #expect(try db.query("SELECT count(*) FROM fine WHERE fine MATCH 'world'") as Int64? == 1)
    }
}
