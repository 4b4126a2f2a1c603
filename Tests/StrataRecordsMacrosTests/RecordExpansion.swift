// The expected text of what `@Record` writes after a declaration, built from its columns: the
// expansion tests compare the macro's whole output with it, character for character, so each
// test states the record's columns once instead of the same hundred lines of members again.

/// One stored property of an expected record, as the generated members name and read it.
struct ExpectedColumn {
    let property: String
    let type: String
    /// The column's name as it stands in a Swift string literal (escapes included).
    let name: String
    var isPrimaryKey = false
    var isJSON = false
    /// The `@Default` literal passed on to the column's description, as written.
    var defaultLiteral: String?

    /// A column named `name` (the property's name when nil).
    static func column(_ property: String, _ type: String, named name: String? = nil, defaulting literal: String? = nil) -> Self {
        Self(property: property, type: type, name: name ?? property, defaultLiteral: literal)
    }

    /// The `@PrimaryKey` column.
    static func key(_ property: String, _ type: String) -> Self {
        Self(property: property, type: type, name: property, isPrimaryKey: true)
    }

    /// A `@JSON` column.
    static func json(_ property: String, _ type: String) -> Self {
        Self(property: property, type: type, name: property, isJSON: true)
    }
}

/// The macro's whole output: `declaration` without its markers, then each extension in
/// `extensions`, a blank line before each.
func expandedRecord(_ declaration: String, _ extensions: String...) -> String {
    ([declaration] + extensions).joined(separator: "\n\n")
}

/// The extension `@Record` adds to `type` (a struct whose memberwise initializer the reads use),
/// for `columns` in order, on table `table`; `access` is written before each member.
func recordExtension(_ type: String, table: String, access: String = "", columns: [ExpectedColumn]) -> String {
    let keyIndex = columns.firstIndex(where: \.isPrimaryKey)
    let memberwise = "self = Self(" + columns.indices.map { "\(columns[$0].property): value\($0)" }.joined(separator: ", ") + ")"

    func describing(_ column: ExpectedColumn) -> String {
        let function = column.isJSON ? "describingJSON" : "describing"
        let defaulting = column.defaultLiteral.map { ".defaulting(to: \($0), as: (\(column.type)).self)" } ?? ""
        return "StrataRecords.RecordColumn.\(function)(\"\(column.name)\", as: (\(column.type)).self, isPrimaryKey: \(column.isPrimaryKey))"
            + defaulting
    }
    /// One of the three readers: `position(i)` is the argument that locates column `i`.
    func reader(_ signature: String, _ position: (Int) -> String) -> [String] {
        ["    \(access)init(\(signature)) throws {", "        let reader = StrataRecords.RecordRowReader(row, for: Self.self)"]
            + columns.indices.map { index in
                let column = columns[index]
                let read = column.isJSON ? "readJSON" : "read"
                return "        let value\(index): \(column.type) = try reader.\(read)(\(position(index)), \"\(column.name)\")"
            }
            + ["        \(memberwise)", "    }"]
    }
    func bind(_ column: ExpectedColumn, at position: Int) -> String {
        let value = column.isJSON ? "json" : "bindable"
        return "            try binder.bind(StrataRecords.RecordValue.\(value)(self.\(column.property)), at: \(position))"
    }
    let noKey = "            throw StrataRecords.RecordError.noPrimaryKey(record: \"\\(Self.self)\")"
    var keyLast = [noKey]
    var keyOnly = [noKey]
    var hasNilKey = "false"
    var didInsert = ""
    if let keyIndex {
        let key = columns[keyIndex]
        let ordered = columns.enumerated().filter { $0.offset != keyIndex }.map(\.element) + [key]
        keyLast = ordered.enumerated().map { bind($0.element, at: $0.offset + 1) }
        keyOnly = [bind(key, at: 1)]
        hasNilKey = "StrataRecords.RecordValue.isNil(self.\(key.property))"
        didInsert = "        StrataRecords.RecordValue.assignRowID(rowID, to: &self.\(key.property))"
    }

    var lines = ["extension \(type): StrataRecords.Record, StrataRecords.QueryableRecord {"]
    lines.append("    \(access)static let tableName: String = \"\(table)\"")
    lines.append("    \(access)static let recordColumns: [StrataRecords.RecordColumn] = [")
    lines.append(columns.map { "        " + describing($0) }.joined(separator: ",\n"))
    lines.append("    ]")
    lines.append("    \(access)static let primaryKeyIndex: Int? = \(keyIndex.map(String.init) ?? "nil")")
    lines.append(
        "    \(access)static let recordStatements = StrataRecords.RecordStatements(table: tableName, columns: recordColumns, primaryKeyIndex: primaryKeyIndex)")
    lines.append("    \(access)struct Columns: StrataRecords.RecordColumnSet {")
    lines += columns.map { "        \(access)var \($0.property): StrataRecords.TypedColumn<\($0.type)>" }
    lines.append("        \(access)init(qualifier: String?) {")
    lines += columns.map { column in
        let label = column.isJSON ? "json: " : ""
        return "            self.\(column.property) = StrataRecords.TypedColumn(\(label)\"\(column.name)\", qualifier: qualifier, record: \"\(type)\")"
    }
    lines += ["        }", "    }"]
    lines.append("    \(access)static let columns = Columns(qualifier: tableName)")
    lines += [
        "    \(access)init(row: Strata.Row) throws {",
        "        try self.init(row: row, columnIndexes: row.recordColumnIndexes(for: Self.self))",
        "    }"
    ]
    lines += reader("row: Strata.Row, columnIndexes indexes: [Int32]") { "indexes[\($0)]" }
    lines += reader("columnOrderedRow row: borrowing Strata.Row") { "\($0)" }
    lines += reader("columnOrderedRow row: borrowing Strata.Row, startingAt offset: Int32") { $0 == 0 ? "offset" : "offset &+ \($0)" }
    lines += [
        "    \(access)func bindRecordColumns(to binder: inout StrataRecords.RecordBinder, order: StrataRecords.RecordBindOrder) throws {",
        "        switch order {",
        "        case .all:"
    ]
    lines += columns.enumerated().map { bind($0.element, at: $0.offset + 1) }
    lines.append("        case .keyLast:")
    lines += keyLast
    lines.append("        case .keyOnly:")
    lines += keyOnly
    lines += ["        }", "    }"]
    lines += ["    \(access)var hasNilPrimaryKey: Bool {", "        \(hasNilKey)", "    }"]
    lines += ["    \(access)mutating func recordDidInsert(rowID: Int64) {", didInsert, "    }"]
    lines.append("}")
    return lines.joined(separator: "\n")
}
