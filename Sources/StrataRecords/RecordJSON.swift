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
        return SQLExpression(SQLFragment(segments: [.text("json_extract("), .fragment(fragment), .text(", "), .value(.text(path)), .text(")")]), moduleReader: { handle, index in
            try optionalColumnValue(columnValue(of: handle, at: index, as: T.self), handle, index, name, record)
        })
    }

    /// `element` compared as the array stores it: the JSON encoder's text of the element, read
    /// by SQLite as JSON (a `Date` is a number, `Data` base64 text), so it meets `json_each.value`.
    private func jsonArrayContains<Element: Bindable>(_ element: Element) -> RecordPredicate {
        let value: [SQLFragment.Segment]
        if let codable = element as? any Codable {
            value = [.text("json_extract("), jsonSegment(codable), .text(", '$')")]
        } else {
            value = [.binding(element)]
        }
        return RecordPredicate(SQLFragment(segments: [
            .text("EXISTS (SELECT 1 FROM json_each("), .fragment(fragment), .text(") WHERE json_each.value = "),
        ] + value + [.text(")")]))
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

/// `value`'s JSON text, bound; a value JSON cannot hold makes the SQL throw when it runs.
private func jsonSegment<T: Codable>(_ value: T) -> SQLFragment.Segment {
    .binding(JSONBinding(value))
}
