import Foundation
import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

/// Checks that bytes follow the changeset (or patchset) format before SQLite reads them: the
/// session extension of SQLite 3.40 can loop forever on some damaged changesets, so nothing
/// damaged reaches it. The format is SQLite's, described in `sqlite3session.c`:
/// a table header (`T` or `P`, a varint column count, one primary-key flag per column, the
/// NUL-terminated table name), then changes (operation, indirect flag, and records of typed
/// fields).
package enum ChangesetFormat {
    /// Where the bytes come from: a buffer in memory, or a file read in pieces.
    protocol Source {
        mutating func byte() throws -> UInt8?
        mutating func skip(_ count: UInt64) throws -> Bool
    }

    struct BufferSource: Source {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        @inline(__always)
        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func skip(_ count: UInt64) -> Bool {
            guard count <= UInt64(bytes.count - offset) else { return false }
            offset += Int(count)
            return true
        }

        /// Reads one field of a validated record; returns its bytes' range.
        mutating func field() -> Range<Int> {
            let start = offset
            switch byte() {
            case 1, 2: _ = skip(8)
            case 3, 4: _ = skip((try? ChangesetFormat.varint(&self)) ?? 0)
            default: break
            }
            return start..<offset
        }

        /// Reads the rest of a validated table header (after its marker); returns each column's
        /// primary-key flag.
        mutating func tableHeader() -> [Bool] {
            tableHeaderBytes().keyFlags.map { $0 != 0 }
        }

        /// Reads the rest of a validated table header (after its marker) as written: each
        /// column's key flag (its place in the key, 0 off it) and the table's name.
        mutating func tableHeaderBytes() -> (keyFlags: [UInt8], name: [UInt8]) {
            let columns = Int((try? ChangesetFormat.varint(&self)) ?? 0)
            let flags = (0..<columns).map { _ in byte() ?? 0 }
            var name: [UInt8] = []
            while let character = byte(), character != 0 { name.append(character) }
            return (flags, name)
        }
    }

    struct FileSource: Source {
        let handle: FileHandle
        var buffer = Data()
        var offset = 0

        mutating func byte() throws -> UInt8? {
            if offset == buffer.count {
                buffer = try handle.read(upToCount: 1 << 16) ?? Data()
                offset = 0
                guard !buffer.isEmpty else { return nil }
            }
            defer { offset += 1 }
            return buffer[buffer.startIndex + offset]
        }

        mutating func skip(_ count: UInt64) throws -> Bool {
            var remaining = count
            while remaining > 0 {
                if offset == buffer.count {
                    buffer = try handle.read(upToCount: 1 << 16) ?? Data()
                    offset = 0
                    guard !buffer.isEmpty else { return false }
                }
                let step = min(remaining, UInt64(buffer.count - offset))
                offset += Int(step)
                remaining -= step
            }
            return true
        }
    }

    static func damaged(_ reason: String) -> SQLiteError {
        SQLiteError(code: SQLITE_CORRUPT, message: "The changeset is damaged: \(reason)")
    }

    /// Throws `SQLITE_CORRUPT` unless the bytes are a well-formed changeset or patchset.
    static func validate(_ data: Data) throws {
        try data.withUnsafeBytes { bytes in
            var source = BufferSource(bytes)
            try validate(&source)
        }
    }

    static func validate<S: Source>(_ source: inout S) throws {
        var columns = 0
        var keys: [Bool] = []
        var isPatchset = false
        var hasTable = false
        while let marker = try source.byte() {
            switch marker {
            case UInt8(ascii: "T"), UInt8(ascii: "P"):
                isPatchset = marker == UInt8(ascii: "P")
                let count = try varint(&source)
                guard count > 0, count <= 32_767 else { throw damaged("a table of \(count) columns") }
                columns = Int(count)
                keys = []
                for _ in 0..<columns {
                    // The session extension writes each key column's position in the key (1, 2,
                    // ... for a composite key), which SQLite's own reader takes as nonzero.
                    guard let flag = try source.byte() else { throw damaged("a table header without its primary key flags") }
                    keys.append(flag != 0)
                }
                var nameLength = 0
                while true {
                    guard let character = try source.byte() else { throw damaged("a table name without its end") }
                    if character == 0 { break }
                    nameLength += 1
                }
                guard nameLength > 0 else { throw damaged("a table without a name") }
                hasTable = true
            case 0x12, 0x17, 0x09: // INSERT, UPDATE, DELETE
                guard hasTable else { throw damaged("a change before any table header") }
                guard let indirect = try source.byte(), indirect <= 1 else { throw damaged("an indirect flag that is not 0 or 1") }
                switch (marker, isPatchset) {
                case (0x12, _):
                    try record(&source, fields: columns, allowUndefined: false)
                case (0x09, false):
                    try record(&source, fields: columns, allowUndefined: false)
                case (0x09, true):
                    try record(&source, fields: keys.filter { $0 }.count, allowUndefined: false)
                case (_, false):
                    try record(&source, fields: columns, allowUndefined: true)
                    try record(&source, fields: columns, allowUndefined: true)
                default:
                    try record(&source, fields: columns, allowUndefined: true)
                }
            default:
                throw damaged("an unknown marker byte \(marker)")
            }
        }
    }

    private static func record<S: Source>(_ source: inout S, fields: Int, allowUndefined: Bool) throws {
        for _ in 0..<fields {
            guard let type = try source.byte() else { throw damaged("a record cut short") }
            switch type {
            case 0:
                guard allowUndefined else { throw damaged("an undefined value where the row must be whole") }
            case 1, 2:
                guard try source.skip(8) else { throw damaged("a number cut short") }
            case 3, 4:
                let length = try varint(&source)
                guard length <= 1_000_000_000, try source.skip(length) else { throw damaged("a text or blob cut short") }
            case 5:
                break
            default:
                throw damaged("a value of unknown type \(type)")
            }
        }
    }

    /// SQLite's varint: 7 bits a byte, high bit set to continue, the ninth byte whole.
    static func varint<S: Source>(_ source: inout S) throws -> UInt64 {
        guard let value = try varint(next: { try source.byte() }) else { throw damaged("a number cut short") }
        return value
    }

    /// SQLite's varint, written: the one encoding the changesets Strata makes use.
    @inline(__always)
    package static func appendVarint<Bytes: RangeReplaceableCollection>(_ value: UInt64, to output: inout Bytes) where Bytes.Element == UInt8 {
        if value <= 0x7F {
            output.append(UInt8(value))
            return
        }
        if value & (UInt64(0xFF00_0000) << 32) != 0 {
            // Nine bytes: eight of 7 bits, the last whole.
            var bytes = [UInt8](repeating: 0, count: 9)
            bytes[8] = UInt8(value & 0xFF)
            var rest = value >> 8
            for index in stride(from: 7, through: 0, by: -1) {
                bytes[index] = UInt8(rest & 0x7F) | 0x80
                rest >>= 7
            }
            output.append(contentsOf: bytes)
            return
        }
        var groups: [UInt8] = []
        var rest = value
        while rest != 0 {
            groups.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        groups[0] &= 0x7F
        output.append(contentsOf: groups.reversed())
    }

    /// The one decoding of SQLite's varint, over bytes `next` gives (nil: they ended first).
    @inline(__always)
    package static func varint(next: () throws -> UInt8?) rethrows -> UInt64? {
        var value: UInt64 = 0
        for index in 0..<9 {
            guard let byte = try next() else { return nil }
            if index == 8 { return (value << 8) | UInt64(byte) }
            value = (value << 7) | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return value }
        }
        return value
    }
}

extension Changeset {
    /// The changeset with each table cut to its first columns, as `width` gives them by table name
    /// (nil: the table as it is): what a replica whose tables lack the columns added since (a
    /// schema version behind) can apply. An UPDATE that changed none of the columns kept goes.
    /// Columns are only ever added at the end of a table (`ALTER TABLE ADD COLUMN`), so the first
    /// ones are the older schema's.
    /// - Throws: `SQLITE_CORRUPT` for damaged bytes; `SQLITE_MISUSE` for a patchset, or a width
    ///   that would drop a key column.
    package func keepingLeadingColumns(_ width: (String) -> Int?) throws -> Changeset {
        try ChangesetFormat.validate(data)
        return try data.withUnsafeBytes { bytes -> Changeset in
            var reader = ChangesetFormat.BufferSource(bytes)
            var output = Data()
            output.reserveCapacity(bytes.count)
            var columns = 0, kept = 0
            func field() throws -> (start: Int, end: Int, defined: Bool) {
                let start = reader.offset
                guard let type = reader.byte() else { throw ChangesetFormat.damaged("a record cut short") }
                switch type {
                case 1, 2: _ = reader.skip(8)
                case 3, 4: _ = reader.skip(try ChangesetFormat.varint(&reader))
                default: break
                }
                return (start, reader.offset, type != 0)
            }
            /// Reads a record of `columns` fields; returns the kept fields' bytes and whether any
            /// kept field past the key is defined.
            func record(keys: [Bool]) throws -> (Data, Bool) {
                var bytesKept = Data()
                var changed = false
                for index in 0..<columns {
                    let (start, end, defined) = try field()
                    if index < kept {
                        bytesKept.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                        if defined, !keys[index] { changed = true }
                    }
                }
                return (bytesKept, changed)
            }
            var keys: [Bool] = []
            while let marker = reader.byte() {
                switch marker {
                case UInt8(ascii: "T"):
                    columns = Int(try ChangesetFormat.varint(&reader))
                    var flags: [UInt8] = []
                    for _ in 0..<columns { flags.append(reader.byte() ?? 0) }
                    keys = flags.map { $0 != 0 }
                    var name: [UInt8] = []
                    while let character = reader.byte(), character != 0 { name.append(character) }
                    let table = String(decoding: name, as: UTF8.self)
                    kept = Swift.min(columns, Swift.max(0, width(table) ?? columns))
                    if keys[kept...].contains(true) {
                        throw SQLiteError(code: SQLITE_MISUSE, message: "Cannot cut \(table) to \(kept) columns: a key column would go")
                    }
                    output.append(UInt8(ascii: "T"))
                    ChangesetFormat.appendVarint(UInt64(kept), to: &output)
                    output.append(contentsOf: flags[..<kept])
                    output.append(contentsOf: name)
                    output.append(0)
                case 0x12, 0x09:
                    let indirect = reader.byte() ?? 0
                    let (fields, _) = try record(keys: keys)
                    output.append(marker)
                    output.append(indirect)
                    output.append(fields)
                case 0x17:
                    let indirect = reader.byte() ?? 0
                    let (old, _) = try record(keys: keys)
                    let (new, changed) = try record(keys: keys)
                    guard changed else { continue }
                    output.append(marker)
                    output.append(indirect)
                    output.append(old)
                    output.append(new)
                default:
                    throw SQLiteError(code: SQLITE_MISUSE, message: "Only a changeset, not a patchset, can be cut to fewer columns")
                }
            }
            return Changeset(data: output)
        }
    }
}

extension ChangesetFormat {
    /// One change of a validated changeset or patchset: its operation byte, indirect flag, its
    /// bytes, and its records' fields (`old`: a DELETE's or an UPDATE's old values; `new`: an
    /// INSERT's or an UPDATE's new values; a patchset's UPDATE has `new` only).
    struct ChangeBytes {
        var operation: UInt8
        var indirect: UInt8
        var range: Range<Int>
        var old: [Range<Int>] = []
        var new: [Range<Int>] = []
    }

    /// Walks validated changeset bytes: `table` for each table header (its bytes, its key flags),
    /// then `change` for each of its changes.
    static func walk(_ bytes: UnsafeRawBufferPointer, table: (Range<Int>, [Bool]) -> Void, change: (ChangeBytes) -> Void) {
        var reader = BufferSource(bytes)
        var keys: [Bool] = [], isPatchset = false
        func fields(_ count: Int) -> [Range<Int>] { (0..<count).map { _ in reader.field() } }
        while reader.offset < bytes.count {
            let start = reader.offset
            guard let marker = reader.byte() else { break }
            switch marker {
            case UInt8(ascii: "T"), UInt8(ascii: "P"):
                isPatchset = marker == UInt8(ascii: "P")
                keys = reader.tableHeader()
                table(start..<reader.offset, keys)
            default:
                var item = ChangeBytes(operation: marker, indirect: reader.byte() ?? 0, range: start..<start)
                switch marker {
                case 0x09: item.old = fields(isPatchset ? keys.filter { $0 }.count : keys.count)
                case 0x17:
                    if !isPatchset { item.old = fields(keys.count) }
                    item.new = fields(keys.count)
                default: item.new = fields(keys.count)
                }
                item.range = start..<reader.offset
                change(item)
            }
        }
    }
}

extension Changeset {
    /// The same changes with each table's INSERTs after its other changes (each in its own
    /// order), or before them when `inverting` (an inverted INSERT is a DELETE); the changeset
    /// itself when it is in that order already.
    ///
    /// A session lists a table's changes in the order of its hash table, so a key renamed under
    /// a collation (`'k'` to `'K'` in a `COLLATE NOCASE` key: a DELETE and an INSERT) can come
    /// INSERT first, which clashes with the row it replaces, and a value a DELETE or UPDATE frees
    /// (a UNIQUE one) may be taken by an INSERT listed before. Only INSERTs move: a DELETE and
    /// the UPDATEs its foreign key actions made (`ON DELETE SET NULL` within one table) keep the
    /// order the session gave them, which their apply needs.
    /// - Precondition: the bytes were validated (``ChangesetFormat/validate(_:)``).
    func insertsLast(inverting: Bool = false) -> Changeset {
        data.withUnsafeBytes { bytes -> Changeset in
            // Per table block: its header's bytes, its INSERTs and its other changes.
            var blocks: [(header: Range<Int>, inserts: [Range<Int>], others: [Range<Int>])] = []
            var seenLast = false, ordered = true
            ChangesetFormat.walk(
                bytes,
                table: { header, _ in
                    blocks.append((header, [], []))
                    seenLast = false
                },
                change: { change in
                    guard !blocks.isEmpty else { return }
                    let isInsert = change.operation == 0x12
                    // In order while what goes last has not been followed by what goes first.
                    if isInsert != inverting { seenLast = true } else if seenLast { ordered = false }
                    if isInsert { blocks[blocks.count - 1].inserts.append(change.range) } else { blocks[blocks.count - 1].others.append(change.range) }
                })
            guard !ordered else { return self }
            var output = Data()
            output.reserveCapacity(bytes.count)
            for block in blocks {
                output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[block.header]))
                for range in inverting ? block.inserts + block.others : block.others + block.inserts {
                    output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[range]))
                }
            }
            return Changeset(data: output)
        }
    }

    /// The changeset with each UPDATE that changes its row's key made a DELETE of the old row.
    ///
    /// SQLite's session extension finds a row again by its key under the key's collation: a key
    /// renamed to one that collation calls equal (`'k'` to `'K'` under `COLLATE NOCASE`, `1` to
    /// `1.0` in an untyped key) is recorded as the INSERT of the new row and an UPDATE of the old
    /// whose new key is set, which no apply accepts ("SQL logic error"). The old row's values the
    /// UPDATE leaves out are the new row's (the session compared the old row with it), which the
    /// INSERT holds; an UPDATE without that INSERT stays as it is. Patchsets are left alone: a
    /// patchset's UPDATE does not keep the old key.
    /// - Precondition: the bytes were validated (``ChangesetFormat/validate(_:)``).
    func withKeyChangesAsDeletes() -> Changeset {
        data.withUnsafeBytes { bytes -> Changeset in
            typealias Field = Range<Int>
            func defined(_ field: Field) -> Bool { bytes[field.lowerBound] != 0 }
            func same(_ left: Field, _ right: Field) -> Bool { bytes[left].elementsEqual(bytes[right]) }
            // Each table header and change, by table block, and each block's key flags.
            var items: [(table: Int, header: Range<Int>?, change: ChangesetFormat.ChangeBytes?)] = []
            var tableKeys: [[Bool]] = [], isChangeset = true, found = false
            ChangesetFormat.walk(
                bytes,
                table: { header, keys in
                    isChangeset = bytes[header.lowerBound] == UInt8(ascii: "T")
                    tableKeys.append(keys)
                    items.append((tableKeys.count - 1, header, nil))
                },
                change: { change in
                    if isChangeset, change.operation == 0x17, zip(tableKeys[tableKeys.count - 1], change.new).contains(where: { $0.0 && defined($0.1) }) {
                        found = true
                    }
                    items.append((tableKeys.count - 1, nil, change))
                })
            guard found else { return self }
            var output = Data()
            output.reserveCapacity(bytes.count)
            for item in items {
                guard let change = item.change else {
                    if let header = item.header { output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[header])) }
                    continue
                }
                let keys = tableKeys[item.table]
                guard change.operation == 0x17, !change.old.isEmpty, zip(keys, change.new).contains(where: { $0.0 && defined($0.1) }) else {
                    output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[change.range]))
                    continue
                }
                // The INSERT of the row under its new key (each key column the UPDATE's new
                // value, or its old one where it left it), in the same table block.
                let positions = keys.indices.filter { keys[$0] }
                let key = positions.map { defined(change.new[$0]) ? change.new[$0] : change.old[$0] }
                let row = items.lazy.filter { $0.table == item.table }.compactMap { candidate -> [Field]? in
                    guard let insert = candidate.change, insert.operation == 0x12, insert.new.count == change.old.count else { return nil }
                    return zip(positions, key).allSatisfy { same(insert.new[$0.0], $0.1) } ? insert.new : nil
                }.first
                guard let row else {
                    // Nothing to complete the old row from (a diff has no INSERT): as it was.
                    output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[change.range]))
                    continue
                }
                output.append(0x09)
                output.append(change.indirect)
                for (field, fallback) in zip(change.old, row) {
                    output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[defined(field) ? field : fallback]))
                }
            }
            return Changeset(data: output)
        }
    }
}
