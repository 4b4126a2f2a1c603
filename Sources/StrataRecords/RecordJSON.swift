import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

// `@JSON` properties: Codable values stored as JSON text (the encoding `JSONBinding` uses: sorted
// keys, so equal values store equal text), read back from JSON text or a JSON blob, and queried
// through SQLite's json functions.

extension RecordValue {
    /// A `@JSON` property binds as JSON text.
    @inlinable
    public static func json<T: Codable>(_ value: T) -> JSONBinding<T> { JSONBinding(value) }

    /// An optional `@JSON` property binds as JSON text, or NULL when nil.
    @inlinable
    public static func json<T: Codable>(_ value: T?) -> JSONBinding<T>? {
        guard let value else { return nil }
        return JSONBinding(value)
    }
}

/// Decodes column `index` as `T`; nil for NULL.
/// - Throws: ``RecordError/invalidJSON(column:record:reason:)`` for text or a blob that is not
///   `T`'s JSON; ``RecordError/valueMismatch(column:record:expected:storageClass:)`` for a number.
func decodeJSONColumn<T: Decodable>(_ handle: SQLiteStatementHandle, _ index: Int32, as type: T.Type, column: String, record: String) throws -> T? {
    let data: Data
    switch sqlite3_column_type(handle, index) {
    case SQLITE_NULL:
        return nil
    case SQLITE_TEXT, SQLITE_BLOB:
        // The kernel's blob reader: a TEXT value's bytes are its UTF-8, the JSON as it is stored.
        guard let value = sqlite3_column_value(handle, index) else { return nil }
        data = readBlob(value)
    default:
        throw recordReadError(handle, index, column: column, record: record, expected: T.self, optional: true)
            ?? RecordError.nullInNonOptional(column: column, record: record)
    }
    do {
        return try JSONDecoder().decode(T.self, from: data)
    } catch {
        throw RecordError.invalidJSON(column: column, record: record, reason: jsonReason(error))
    }
}

/// A decoding error in a sentence: what was expected where.
private func jsonReason(_ error: Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func path(_ context: DecodingError.Context) -> String {
        let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return keys.isEmpty ? "" : " at \(keys)"
    }
    switch error {
    case .typeMismatch(let type, let context): return "expected \(type)\(path(context))"
    case .valueNotFound(let type, let context): return "missing \(type)\(path(context))"
    case .keyNotFound(let key, let context): return "missing key '\(key.stringValue)'\(path(context))"
    case .dataCorrupted(let context): return "\(context.debugDescription)\(path(context))"
    @unknown default: return "\(error)"
    }
}

extension RecordRowReader {
    /// A `@JSON` property's value.
    /// - Throws: ``RecordError`` naming the column and record when it is NULL or not the JSON of `T`.
    // Disfavored: an optional property's type is also Codable, and must read through the optional form.
    @_disfavoredOverload
    public func readJSON<T: Codable>(_ index: Int32, _ column: String) throws -> T {
        guard let value = try decodeJSONColumn(handle, index, as: T.self, column: column, record: "\(R.self)") else {
            throw RecordError.nullInNonOptional(column: column, record: "\(R.self)")
        }
        return value
    }

    /// An optional `@JSON` property's value: nil for NULL (and for JSON `null`).
    /// - Throws: ``RecordError/invalidJSON(column:record:reason:)``.
    public func readJSON<T: Codable>(_ index: Int32, _ column: String) throws -> T? {
        try decodeJSONColumn(handle, index, as: T?.self, column: column, record: "\(R.self)") ?? nil
    }
}

extension TypedColumn {
    /// The column of a `@JSON` property: compared and set as JSON text, selected as the value.
    // Disfavored: an optional property's type is also Codable, and must take the optional form.
    @_disfavoredOverload
    public init(json name: String, qualifier: String? = nil, record: String = "") where Value: Codable {
        self.init(name, qualifier: qualifier, record: record, binding: { JSONBinding($0).bindingValue }) { handle, index in
            guard let value = try decodeJSONColumn(handle, index, as: Value.self, column: name, record: record) else {
                throw RecordError.nullInNonOptional(column: name, record: record)
            }
            return value
        }
        // A value JSON cannot hold throws when the SQL runs, as an insert does, never NULL.
        encodingError = { JSONBinding($0).encodingError }
    }

    /// The column of an optional `@JSON` property (nil is SQL NULL).
    public init<Wrapped: Codable>(json name: String, qualifier: String? = nil, record: String = "") where Value == Wrapped? {
        self.init(name, qualifier: qualifier, record: record, binding: { $0.map { JSONBinding($0).bindingValue } ?? .null }) { handle, index in
            try decodeJSONColumn(handle, index, as: Wrapped?.self, column: name, record: record) ?? nil
        }
        encodingError = { $0.flatMap { JSONBinding($0).encodingError } }
    }

    /// `json_extract(column, path)`, read as `T` (nil where the path is absent).
    ///
    /// ```swift
    /// Article.where { $0.meta.json("$.pages", as: Int.self) > 100 }
    /// ```
    public func json<T: Bindable & Extractable>(_ path: String, as type: T.Type) -> SQLExpression<T?> {
        let name = "\(self.name) \(path)"
        let record = self.record
        return SQLExpression(
            .call("json_extract", [fragment, "\(path)"]),
            moduleReader: { handle, index in
                try optionalColumnValue(columnValueWithLenientDates(of: handle, at: index, as: T.self), handle, index, name, record)
            })
    }

    /// The array at `path` of a JSON column, for `contains`, `count` and `isEmpty`; selected or
    /// ordered as the array (nil where the path is absent).
    ///
    /// ```swift
    /// Book.where { $0.metadata.json("$.tags", as: [String].self).contains("sci-fi") }
    /// Book.where { $0.metadata.json("$.tags", as: [String].self).count >= 2 }
    /// ```
    public func json<Element: Codable>(_ path: String, as type: [Element].Type) -> JSONArrayPath<Element> {
        JSONArrayPath(json: fragment, path: path, name: "\(name) \(path)", record: record)
    }

    private func jsonArrayContains<Element: Bindable>(_ element: Element) -> RecordPredicate {
        jsonArrayContainsPredicate(fragment, path: nil, element)
    }

    /// Whether a `@JSON` array holds `element` (through `json_each`).
    ///
    /// ```swift
    /// Article.where { $0.tags.contains("swift") }
    /// ```
    public func contains<Element: Bindable>(_ element: Element) -> RecordPredicate where Value == [Element] {
        jsonArrayContains(element)
    }

    /// Whether an optional `@JSON` array holds `element`; false where it is NULL.
    public func contains<Element: Bindable>(_ element: Element) -> RecordPredicate where Value == [Element]? {
        jsonArrayContains(element)
    }
}

/// The one `contains` of JSON arrays: whether the array in `json` (at `path`, when given) holds
/// `element`, compared as the JSON encoder writes it (a `Date` is a number, `Data` base64 text),
/// read by SQLite as JSON so it meets `json_each.value`. Text compares by its UTF-8, as SQLite's
/// `=` does. With a path, only an array's elements count (json_each also walks a scalar or an
/// object there); JSON `null` matches an optional element's nil.
func jsonArrayContainsPredicate<Element>(_ json: SQLFragment, path: String?, _ element: Element) -> RecordPredicate {
    let source: SQLFragment = path.map { "json_each(\(json), \($0))" } ?? "json_each(\(json))"
    let match: SQLFragment
    if let codable = element as? any Codable {
        match = jsonElementMatch(json, codable)
    } else if let bindable = element as? any Bindable {
        match = "json_each.value = \(boundFragment(bindable))"
    } else {
        match = "0"
    }
    let arrayOnly: SQLFragment = path == nil ? "" : "typeof(json_each.key) = 'integer' AND "
    return RecordPredicate(.exists("SELECT 1 FROM \(source) WHERE \(arrayOnly)\(match)"))
}

private func boundFragment<T: Bindable>(_ value: T) -> SQLFragment { .value(value) }

/// The condition on a `json_each` row of `json` that its element is `element` as encoded.
private func jsonElementMatch<T: Codable>(_ json: SQLFragment, _ element: T) -> SQLFragment {
    let binding = JSONBinding(element)
    // A value JSON cannot hold stays a segment that makes running the SQL throw.
    guard case .text(let encoded) = binding.bindingValue else {
        return "json_each.value = json_extract(\(binding), '$')"
    }
    if encoded == "null" { return "json_each.type = 'null'" }
    let value: SQLFragment = "json_each.value = json_extract(\(encoded), '$')"
    guard encoded.utf8.first == UInt8(ascii: "\"") else { return value }
    // SQLite before 3.45 cuts a JSON string's text at an escaped NUL (`\u0000`), so "a\0b" and
    // "a" read as equal values. The element as the array writes it settles that: json_extract
    // with two paths renders them as JSON, each string as stored, escapes and all.
    let stored: SQLFragment = "json_extract(\(json), json_each.fullkey, json_each.fullkey)"
    let exact: SQLFragment = "\(stored) = \("[" + encoded + "," + encoded + "]")"
    let nul = "\\u0000"
    if containsBytes(encoded, nul) {
        return "\(value) AND \(exact)"
    }
    // Without NUL on either side, the values are the strings; the rendering is asked only on a
    // match, and only to rule out a stored string that has one.
    return "\(value) AND (instr(\(stored), \(sql: quoteStringLiteral(nul))) = 0 OR \(exact))"
}

/// Whether `text`'s UTF-8 holds `part`'s.
private func containsBytes(_ text: String, _ part: String) -> Bool {
    let needle = Array(part.utf8)
    let haystack = Array(text.utf8)
    guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
    for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
        return true
    }
    return false
}

/// An array inside a JSON column, at a path: `column.json(path, as: [Element].self)`.
///
/// The path is bound, never written into the SQL. Where the path is absent (or the column NULL)
/// `count` is nil and neither `isEmpty` nor `contains` holds, as SQL's NULL goes.
public struct JSONArrayPath<Element: Codable>: QueryExpression, OrderingTerm {
    /// The array, selected: its JSON read back as `[Element]`.
    public typealias Value = [Element]?

    let json: SQLFragment
    let path: String
    let name: String
    let record: String

    /// `json_extract(column, path)`: the array's JSON.
    public var fragment: SQLFragment { call("json_extract") }

    /// `function(column, path)`, the path bound.
    private func call(_ function: String) -> SQLFragment {
        .call(function, [json, "\(path)"])
    }

    /// Decodes the array; nil for NULL.
    /// - Throws: ``RecordError/invalidJSON(column:record:reason:)`` when it is not `[Element]`'s JSON.
    public func readValue(from handle: SQLiteStatementHandle, at index: Int32) throws -> [Element]? {
        try decodeJSONColumn(handle, index, as: [Element].self, column: name, record: record)
    }

    /// Whether the array holds `element` (through `json_each`), compared as the JSON encoder
    /// writes it; text by its UTF-8, as SQLite compares it.
    public func contains(_ element: Element) -> RecordPredicate {
        jsonArrayContainsPredicate(json, path: path, element)
    }

    /// `json_array_length(column, path)`: the number of elements; nil where the path is absent,
    /// 0 where it holds something other than an array.
    public var count: SQLExpression<Int?> {
        let (name, record) = ("json_array_length(\(self.name))", self.record)
        return SQLExpression(
            call("json_array_length"),
            moduleReader: { handle, index in
                try optionalColumnValue(columnValueWithLenientDates(of: handle, at: index, as: Int.self), handle, index, name, record)
            })
    }

    /// Whether the array has no elements (`json_array_length(column, path) = 0`).
    public var isEmpty: RecordPredicate {
        RecordPredicate(.infix(call("json_array_length"), .equal, "0"))
    }
}
