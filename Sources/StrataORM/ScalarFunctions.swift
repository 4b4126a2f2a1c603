import Foundation

// The rest of SQLite's core scalar functions, under SQLiteORM-Swift's names, so code written for
// it ports unchanged: `substr(\User.name, 1, 3)`, `ifnull(\User.nick, "none")`, `sqliteVersion()`.
// Every argument is an expression: a key path, a function, or a value bound as a parameter.

/// `changes()`: rows changed by the last INSERT, UPDATE or DELETE.
public func changes() -> FunctionCall<Int> { FunctionCall("changes", []) }
/// `total_changes()`: rows changed since the connection opened.
public func totalChanges() -> FunctionCall<Int> { FunctionCall("total_changes", []) }
/// `last_insert_rowid()`: the rowid of the last row inserted on the connection.
public func lastInsertRowid() -> FunctionCall<Int64> { FunctionCall("last_insert_rowid", []) }
/// `char(x, …)`: the text of these Unicode code points.
public func char(_ codePoints: any Expression...) -> FunctionCall<String?> { FunctionCall("char", codePoints) }
/// `format(format, …)`: printf-style formatting (SQLite 3.38+; `printf` before).
public func format(_ format: some Expression, _ arguments: any Expression...) -> FunctionCall<String?> { FunctionCall("format", [format] + arguments) }
/// `printf(format, …)`: printf-style formatting.
public func printf(_ format: some Expression, _ arguments: any Expression...) -> FunctionCall<String?> { FunctionCall("printf", [format] + arguments) }
/// `hex(x)`: upper-case hexadecimal of the value's bytes.
public func hex(_ x: some Expression) -> FunctionCall<String> { FunctionCall("hex", [x]) }
/// `ifnull(x, y)`: `x`, or `y` when `x` is NULL.
public func ifnull<E: ResultExpression>(_ x: E, _ y: some Expression) -> FunctionCall<E.Value> { FunctionCall("ifnull", [x, y]) }
/// `nullif(x, y)`: NULL when `x = y`, else `x`.
public func nullif<E: ResultExpression>(_ x: E, _ y: some Expression) -> FunctionCall<E.Value?> { FunctionCall("nullif", [x, y]) }
/// `iif(condition, then, else)`.
public func iif<E: ResultExpression>(_ condition: some Expression, _ then: E, _ otherwise: some Expression) -> FunctionCall<E.Value> {
    FunctionCall("iif", [condition, then, otherwise])
}
/// `instr(x, y)`: the 1-based position of `y` in `x`, 0 when absent.
public func instr(_ x: some Expression, _ y: some Expression) -> FunctionCall<Int?> { FunctionCall("instr", [x, y]) }
/// `like(pattern, x, escape)`: whether `x` matches `pattern` with `escape` before literal `%` and `_`.
public func like(_ pattern: some Expression, _ x: some Expression, _ escape: some Expression) -> FunctionCall<Bool?> {
    FunctionCall("like", [pattern, x, escape])
}
/// `likelihood(x, p)`: `x`, with a planner hint that it is true with probability `p`.
/// SQLite takes only a constant there, so a probability within 0…1 is written as a number
/// literal; any other is bound, and SQLite's error says why.
public func likelihood<E: ResultExpression>(_ x: E, _ probability: Double) -> FunctionCall<E.Value> {
    guard probability >= 0, probability <= 1 else { return FunctionCall("likelihood", [x, probability]) }
    // `+ 0.0` makes -0.0 zero: SQLite reads "-0.0" as a negation, not a constant.
    return FunctionCall("likelihood", [x, NumberLiteral(value: probability + 0.0)])
}

/// A number written into the SQL text: only for a finite Double the caller has checked.
struct NumberLiteral: Expression {
    typealias Value = Double
    let value: Double
    var fragment: SQLFragment { SQLFragment(sql: "\(value)") }
}
/// `likely(x)`: `x`, with a planner hint that it is usually true.
public func likely<E: ResultExpression>(_ x: E) -> FunctionCall<E.Value> { FunctionCall("likely", [x]) }
/// `unlikely(x)`: `x`, with a planner hint that it is usually false.
public func unlikely<E: ResultExpression>(_ x: E) -> FunctionCall<E.Value> { FunctionCall("unlikely", [x]) }
/// `load_extension(path)`: loads an extension; fails unless extension loading is enabled.
public func loadExtension(_ path: some Expression) -> FunctionCall<String?> { FunctionCall("load_extension", [path]) }
/// `load_extension(path, entryPoint)`.
public func loadExtension(_ path: some Expression, _ entryPoint: some Expression) -> FunctionCall<String?> {
    FunctionCall("load_extension", [path, entryPoint])
}
/// `ltrim(x, characters)`: without leading `characters`.
public func ltrim(_ x: some Expression, _ characters: some Expression) -> FunctionCall<String?> { FunctionCall("ltrim", [x, characters]) }
/// `rtrim(x, characters)`: without trailing `characters`.
public func rtrim(_ x: some Expression, _ characters: some Expression) -> FunctionCall<String?> { FunctionCall("rtrim", [x, characters]) }
/// `trim(x, characters)`: without leading and trailing `characters`.
public func trim(_ x: some Expression, _ characters: some Expression) -> FunctionCall<String?> { FunctionCall("trim", [x, characters]) }
/// `max(x, y, …)`: the largest argument (the scalar form; one argument is the aggregate).
public func max<E: ResultExpression>(_ x: E, _ y: some Expression, _ rest: any Expression...) -> FunctionCall<E.Value> { FunctionCall("max", [x, y] + rest) }
/// `min(x, y, …)`: the smallest argument (the scalar form; one argument is the aggregate).
public func min<E: ResultExpression>(_ x: E, _ y: some Expression, _ rest: any Expression...) -> FunctionCall<E.Value> { FunctionCall("min", [x, y] + rest) }
/// `coalesce(x, y, z, …)`: the first non-NULL argument.
public func coalesce<E: ResultExpression>(_ x: E, _ y: some Expression, _ z: some Expression, _ rest: any Expression...) -> FunctionCall<E.Value> {
    FunctionCall("coalesce", [x, y, z] + rest)
}
/// `random()`: a pseudo-random 64-bit integer.
public func random() -> FunctionCall<Int64> { FunctionCall("random", []) }
/// `randomblob(n)`: `n` random bytes.
public func randomblob(_ count: some Expression) -> FunctionCall<Data?> { FunctionCall("randomblob", [count]) }
/// `zeroblob(n)`: `n` zero bytes.
public func zeroblob(_ count: some Expression) -> FunctionCall<Data?> { FunctionCall("zeroblob", [count]) }
/// `replace(x, y, z)`: `x` with every `y` replaced by `z`.
public func replace(_ x: some Expression, _ y: some Expression, _ z: some Expression) -> FunctionCall<String?> { FunctionCall("replace", [x, y, z]) }
/// `round(x)`: rounded to an integer value, as a Double.
public func round(_ x: some Expression) -> FunctionCall<Double?> { FunctionCall("round", [x]) }
/// `round(x, digits)`.
public func round(_ x: some Expression, _ digits: some Expression) -> FunctionCall<Double?> { FunctionCall("round", [x, digits]) }
/// `sign(x)`: -1, 0 or 1; NULL for what is not a number (SQLite 3.35+).
public func sign(_ x: some Expression) -> FunctionCall<Int?> { FunctionCall("sign", [x]) }
/// `soundex(x)`: only in SQLite builds with `SQLITE_SOUNDEX` (the statement fails elsewhere).
public func soundex(_ x: some Expression) -> FunctionCall<String?> { FunctionCall("soundex", [x]) }
/// `sqlite_compileoption_get(n)`: the n-th compile option, NULL past the last.
public func sqliteCompileOptionGet(_ index: some Expression) -> FunctionCall<String?> { FunctionCall("sqlite_compileoption_get", [index]) }
/// `sqlite_compileoption_used(name)`: 1 when SQLite was built with the option.
public func sqliteCompileOptionUsed(_ name: some Expression) -> FunctionCall<Int> { FunctionCall("sqlite_compileoption_used", [name]) }
/// `sqlite_offset(x)`: the file offset of a column's value (builds with `SQLITE_ENABLE_OFFSET_SQL_FUNC`).
public func sqliteOffset(_ x: some Expression) -> FunctionCall<Int64?> { FunctionCall("sqlite_offset", [x]) }
/// `sqlite_source_id()`: the check-in SQLite was built from.
public func sqliteSourceId() -> FunctionCall<String> { FunctionCall("sqlite_source_id", []) }
/// `sqlite_version()`: the running SQLite's version.
public func sqliteVersion() -> FunctionCall<String> { FunctionCall("sqlite_version", []) }
/// `substr(x, start, length)`: characters of text (bytes of a blob) from a 1-based `start`.
public func substr(_ x: some Expression, _ start: some Expression, _ length: some Expression) -> FunctionCall<String?> {
    FunctionCall("substr", [x, start, length])
}
/// `substr(x, start)`: from a 1-based `start` to the end.
public func substr(_ x: some Expression, _ start: some Expression) -> FunctionCall<String?> { FunctionCall("substr", [x, start]) }
/// `substr(x, start, length)` under its other name (`substring` is SQLite 3.34+; `substr` runs everywhere).
public func substring(_ x: some Expression, _ start: some Expression, _ length: some Expression) -> FunctionCall<String?> {
    FunctionCall("substr", [x, start, length])
}
/// `substr(x, start)` under its other name.
public func substring(_ x: some Expression, _ start: some Expression) -> FunctionCall<String?> { FunctionCall("substr", [x, start]) }
/// `unicode(x)`: the code point of the first character.
public func unicode(_ x: some Expression) -> FunctionCall<Int?> { FunctionCall("unicode", [x]) }
