// Capturing one transaction's changes as a changeset from SQLite's pre-update hook, with the
// session extension as the fallback. The session runs statements of its own for each session
// (the table's columns, every time); the hook capture keeps each table's shape in the schema
// reader's cache, and writes the changeset bytes itself, with the session's semantics:
//
// - each row touched is remembered once, at its first touch: its values then (an UPDATE's or a
//   DELETE's old row), or that it did not exist (an INSERT, or the new key of an UPDATE that
//   changes it);
// - at capture time (before COMMIT) the row is read again by its key: an INSERT when it is new,
//   a DELETE when it is gone, an UPDATE of the columns that differ when both exist, nothing
//   otherwise. So a rolled-back savepoint, an insert then delete, REPLACE and a key change come
//   out as their net effect.
//
// A row found again under a key its collation (or affinity) calls equal but whose bytes differ
// (`'k'` renamed `'K'` under NOCASE) is taken as gone: the DELETE of the old key and the INSERT of
// the new, as ``Changeset/withKeyChangesAsDeletes()`` makes of the session's output.
import Foundation
import Strata
#if canImport(SQLite3)
import SQLite3
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// SQLite's pre-update hook API, found at run time: `sqlite3.h` declares it only under
/// `SQLITE_ENABLE_PREUPDATE_HOOK`, which an importer cannot define, and a library built without
/// it lacks the symbols (the session extension is then missing too).
enum PreupdateHookAPI {
    typealias Callback =
        @convention(c) (
            UnsafeMutableRawPointer?, OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int64, Int64
        ) -> Void
    typealias Install = @convention(c) (OpaquePointer?, Callback?, UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
    typealias ValueAt = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias Count = @convention(c) (OpaquePointer?) -> Int32

    struct Functions: @unchecked Sendable {
        let install: Install
        let old: ValueAt
        let new: ValueAt
        let count: Count
        let depth: Count
    }

    /// The functions, or nil when the linked SQLite lacks them.
    static let functions: Functions? = {
        #if os(Linux) || os(Android) || os(OpenBSD)
        guard let library = dlopen(nil, RTLD_NOW) else { return nil }
        #else
        let library = UnsafeMutableRawPointer(bitPattern: -2) // RTLD_DEFAULT
        #endif
        func symbol<T>(_ name: String, _ type: T.Type) -> T? {
            dlsym(library, name).map { unsafeBitCast($0, to: type) }
        }
        guard let install = symbol("sqlite3_preupdate_hook", Install.self), let old = symbol("sqlite3_preupdate_old", ValueAt.self),
            let new = symbol("sqlite3_preupdate_new", ValueAt.self), let count = symbol("sqlite3_preupdate_count", Count.self),
            let depth = symbol("sqlite3_preupdate_depth", Count.self)
        else { return nil }
        return Functions(install: install, old: old, new: new, count: count, depth: depth)
    }()
}

/// Records the changes one transaction makes to some tables, for ``changeset()`` before it
/// commits: from the pre-update hook where the linked SQLite has one, else with a session.
package final class ChangeCapture {
    /// How a write is captured (the settings name it in Model, a layer below).
    package typealias Path = CapturePath

    /// The path ``Path/automatic`` stands for: `STRATA_CHANGE_CAPTURE=hook` or `=session` in the
    /// environment forces one (tests run both), else the hook where it exists.
    package static let automaticPath: Path = {
        if let forced = ProcessInfo.processInfo.environment["STRATA_CHANGE_CAPTURE"].flatMap(Path.init(rawValue:)), forced != .automatic {
            return forced
        }
        return PreupdateHookAPI.functions != nil ? .hook : .session
    }()

    /// A session holds the connection's pre-update hook.
    struct HookTaken: Error {}

    /// The connection whose changes are captured.
    package let connection: Connection
    /// The path taken.
    package let path: Path
    private var session: ChangeSession?
    private var recorder: HookRecorder?

    /// Starts capturing. `atTransactionStart`: the caller vouches that nothing in the current
    /// transaction has changed the schema yet, so the tables' shapes read now may be cached.
    init(connection: Connection, tables: [String], path requested: Path, atTransactionStart: Bool) throws {
        self.connection = connection
        var path = requested == .automatic ? Self.automaticPath : requested
        if path == .hook {
            guard let functions = PreupdateHookAPI.functions else {
                throw SQLiteError(code: SQLITE_MISUSE, message: "The linked SQLite has no pre-update hook")
            }
            do {
                let recorder =
                    try HookRecorder.reused(on: connection, tables: tables, atTransactionStart: atTransactionStart)
                    ?? HookRecorder(connection: connection, tables: tables, functions: functions, atTransactionStart: atTransactionStart)
                try recorder.install()
                self.recorder = recorder
            } catch ChangesetError.generatedColumnsUnsupported where requested == .automatic {
                // The session answers for such tables as it always has (it refuses them on 3.40).
                path = .session
            } catch is HookTaken where requested == .automatic {
                // A session records this connection already: another one joins it.
                path = .session
            } catch is HookTaken {
                throw SQLiteError(code: SQLITE_MISUSE, message: "A session records this connection's changes: the pre-update hook is taken")
            }
        }
        if path != .hook { session = try connection.recordChanges(tables: tables) }
        self.path = path == .hook ? .hook : .session
    }

    deinit { close() }

    /// Stops capturing and frees what was recorded.
    package func close() {
        session?.close()
        session = nil
        if let recorder {
            recorder.uninstall()
            recorder.keepForReuse()
        }
        recorder = nil
    }

    /// The changes captured so far, as the session extension would give them (row order aside).
    /// - Throws: ``ChangesetError/sessionClosed`` after ``close()``; `SQLiteError` from SQLite,
    ///   or `SQLITE_SCHEMA` when a captured table's columns changed during the capture.
    package func changeset() throws -> Changeset {
        if let session { return try session.changeset() }
        guard let recorder else { throw ChangesetError.sessionClosed }
        return try recorder.changeset()
    }
}

extension Connection {
    /// Captures the changes this connection makes to `tables` from now on (see ``ChangeCapture``).
    package func captureChanges(tables: [String], path: ChangeCapture.Path = .automatic, atTransactionStart: Bool = false) throws -> ChangeCapture {
        try ChangeCapture(connection: self, tables: tables, path: path, atTransactionStart: atTransactionStart)
    }
}

/// The pre-update hook's state for one capture: each captured table's rows at first touch.
final class HookRecorder {
    /// One captured table's touched rows, in first-touch order.
    final class TableLog {
        /// The name written in the changeset (as the caller named the table).
        let changesetName: String
        var shape: CaptureTableShape?
        /// Each touched row's key fields (encoded), its row index.
        var index: [[UInt8]: Int] = [:]
        var rowKeys: [[UInt8]] = []
        /// The row's fields at first touch (encoded, concatenated), or nil when it did not exist.
        var olds: [[UInt8]?] = []
        var indirect: [Bool] = []

        init(changesetName: String) { self.changesetName = changesetName }
    }

    // Unowned: an idle recorder is kept in its connection's slot for the next capture (a strong
    // reference would keep the connection alive); a capture holds the connection meanwhile.
    unowned let connection: Connection
    let functions: PreupdateHookAPI.Functions
    /// The tables as the caller named them, and each one's log (nil for a repeated name).
    private let tables: [String]
    private var slots: [TableLog?] = []
    /// Captured tables by their names' keys (bytes, ASCII folded), and in the caller's order.
    private var tablesByKey: [[UInt8]: TableLog] = [:]
    private var order: [TableLog] = []
    /// The last table the hook saw: its name's bytes and its log (nil: not captured).
    private var lastName: [UInt8] = []
    private var lastLog: TableLog?
    private var hasLast = false
    private(set) var failure: (any Error)?
    private var installed = false
    // Scratch buffers reused across hook calls.
    private var keyBuffer: [UInt8] = []

    /// The schema's version when the capture began: a table changed after its last touch is
    /// checked again before its changes are written.
    private var startVersion: Int64 = 0

    init(connection: Connection, tables: [String], functions: PreupdateHookAPI.Functions, atTransactionStart: Bool) throws {
        self.connection = connection
        self.functions = functions
        self.tables = tables
        for table in tables {
            let key = IdentifierSet.key(table)
            guard tablesByKey[key] == nil else {
                slots.append(nil)
                continue
            }
            let log = TableLog(changesetName: table)
            tablesByKey[key] = log
            order.append(log)
            slots.append(log)
        }
        try start(atTransactionStart: atTransactionStart)
    }

    /// Reads the tables' shapes and the schema version for a new capture, and forgets what an
    /// earlier capture recorded.
    private func start(atTransactionStart: Bool) throws {
        let (version, shapes) = try connection.schemaReader.captureShapes(ofTables: tables, atTransactionStart: atTransactionStart)
        startVersion = version
        failure = nil
        for (slot, shape) in zip(slots, shapes) {
            guard let log = slot else { continue }
            log.shape = shape
            log.index.removeAll(keepingCapacity: true)
            log.rowKeys.removeAll(keepingCapacity: true)
            log.olds.removeAll(keepingCapacity: true)
            log.indirect.removeAll(keepingCapacity: true)
            // Generated columns stay with the session (the hook's rows and the changeset's
            // columns differ on them).
            if let shape, shape.hasGeneratedColumns {
                throw ChangesetError.generatedColumnsUnsupported(table: log.changesetName)
            }
        }
    }

    /// The most rows a recorder kept for reuse held: a larger one is let go with its storage.
    private static let reusableRowLimit = 256

    /// Keeps this recorder (its hook removed) in its connection for the next capture of the same
    /// tables: a replica captures every write, and building the tables' logs, their maps and
    /// the hook's last-table cache anew each time was allocations on every write.
    func keepForReuse() {
        guard !installed, order.allSatisfy({ $0.rowKeys.count <= Self.reusableRowLimit }) else { return }
        connection.state(in: IdleHookRecorder.slot).recorder = self
    }

    /// The recorder kept by the connection's last capture of the same `tables`, started anew;
    /// nil when there is none (it is taken: a capture running meanwhile makes its own).
    static func reused(on connection: Connection, tables: [String], atTransactionStart: Bool) throws -> HookRecorder? {
        let idle = connection.state(in: IdleHookRecorder.slot)
        // Names compared by their bytes, as SQLite compares them: Swift's `==` takes `é` and `e`
        // + U+0301 for one name, and the recorder would write the other table's name.
        guard let recorder = idle.recorder, recorder.tables.elementsEqual(tables, by: { sameBytes($0, $1) }) else { return nil }
        idle.recorder = nil
        try recorder.start(atTransactionStart: atTransactionStart)
        return recorder
    }

    func install() throws {
        // A session holds the hook: replacing it would silence the session.
        guard !PreupdateHookOwners.hasSessions(connection.handle) else { throw ChangeCapture.HookTaken() }
        connection.deleteRowByRow()
        let previous = functions.install(connection.handle, preupdateCallback, Unmanaged.passUnretained(self).toOpaque())
        if previous != nil {
            // Another hook was there (SQLite hands back only its context, not its function, so it
            // cannot be put back): ours goes too, and the capture that held it fails loudly at
            // its changeset (its hook was replaced) rather than miss changes silently.
            _ = functions.install(connection.handle, nil, nil)
            throw SQLiteError(code: SQLITE_MISUSE, message: "Another pre-update hook (a session) is active on this connection")
        }
        installed = true
        PreupdateHookOwners.capture(true, on: connection.handle)
    }

    /// Removes the hook; notes a failure when something replaced it meanwhile (a session opened
    /// on the connection), as its changes were not all seen.
    func uninstall() {
        guard installed else { return }
        installed = false
        PreupdateHookOwners.capture(false, on: connection.handle)
        let previous = functions.install(connection.handle, nil, nil)
        if previous != Unmanaged.passUnretained(self).toOpaque() {
            failure =
                failure ?? SQLiteError(code: SQLITE_MISUSE, message: "The pre-update hook was replaced during the capture (a session opened on the connection)")
        }
    }

    /// The log of the table the hook names, or nil when it is not captured.
    @inline(__always)
    private func log(named name: UnsafePointer<CChar>) -> TableLog? {
        let length = strlen(name)
        let bytes = UnsafeRawBufferPointer(start: name, count: length)
        if hasLast, lastName.elementsEqual(bytes) { return lastLog }
        lastName = Array(bytes)
        lastLog = tablesByKey[lastName.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }]
        hasLast = true
        return lastLog
    }

    /// One pre-update event.
    func event(_ db: OpaquePointer?, _ operation: Int32, _ database: UnsafePointer<CChar>?, _ table: UnsafePointer<CChar>?) {
        guard failure == nil, let database, let table, strcmp(database, "main") == 0, let log = log(named: table) else { return }
        do {
            try record(db, operation, log)
        } catch {
            failure = error
        }
    }

    private func record(_ db: OpaquePointer?, _ operation: Int32, _ log: TableLog) throws {
        let count = Int(functions.count(db))
        if log.shape?.columnCount != count {
            // The table changed in this transaction (or was created): read it again, uncached.
            guard log.rowKeys.isEmpty else {
                throw SQLiteError(code: SQLITE_SCHEMA, message: "The columns of \(log.changesetName) changed during the capture")
            }
            log.shape = try connection.schemaReader.captureShape(ofTable: log.changesetName, atTransactionStart: false)
            if log.shape?.columnCount != count {
                throw SQLiteError(code: SQLITE_SCHEMA, message: "The columns of \(log.changesetName) do not match its rows")
            }
        }
        guard let shape = log.shape, !shape.keyColumns.isEmpty else { return }
        let indirect = functions.depth(db) > 0
        switch operation {
        case SQLITE_INSERT:
            if let key = key(db, shape, functions.new) { touch(log, key, indirect: indirect, old: nil) }
        case SQLITE_DELETE:
            if let key = key(db, shape, functions.old) { touch(log, key, indirect: indirect, old: (db, count)) }
        case SQLITE_UPDATE:
            let oldKey = key(db, shape, functions.old)
            if let oldKey { touch(log, oldKey, indirect: indirect, old: (db, count)) }
            if let newKey = key(db, shape, functions.new), newKey != oldKey { touch(log, newKey, indirect: indirect, old: nil) }
        default:
            break
        }
    }

    /// The key fields of the row `read` gives (old or new), encoded; nil when one is NULL (the
    /// session ignores such rows).
    private func key(_ db: OpaquePointer?, _ shape: CaptureTableShape, _ read: PreupdateHookAPI.ValueAt) -> [UInt8]? {
        keyBuffer.removeAll(keepingCapacity: true)
        for column in shape.keyColumns {
            var value: OpaquePointer?
            guard read(db, Int32(column), &value) == SQLITE_OK, let value, sqlite3_value_type(value) != SQLITE_NULL else { return nil }
            let start = keyBuffer.count
            ChangesetWriter.append(value: value, to: &keyBuffer)
            ChangesetWriter.normalizeKeyField(&keyBuffer, at: start)
        }
        return keyBuffer
    }

    /// Notes a touch of the row `key`; at its first, remembers its old fields (read from the
    /// hook's old row when `old` is given) or that it did not exist.
    private func touch(_ log: TableLog, _ key: [UInt8], indirect: Bool, old: (OpaquePointer?, Int)?) {
        if let row = log.index[key] {
            if !indirect { log.indirect[row] = false }
            return
        }
        var fields: [UInt8]?
        if let old {
            let (db, count) = old
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count * 4)
            for column in 0..<count {
                var value: OpaquePointer?
                if functions.old(db, Int32(column), &value) == SQLITE_OK, let value {
                    ChangesetWriter.append(value: value, to: &bytes)
                } else {
                    bytes.append(5)
                }
            }
            fields = bytes
        }
        log.index[key] = log.rowKeys.count
        log.rowKeys.append(key)
        log.olds.append(fields)
        log.indirect.append(indirect)
    }

    /// The net changes, read against the rows as they are now.
    func changeset() throws -> Changeset {
        // A session opened (or closed) on the connection meanwhile took the hook over: what it
        // saw is missing here. Put back, and refused.
        if installed {
            let me = Unmanaged.passUnretained(self).toOpaque()
            let previous = functions.install(connection.handle, preupdateCallback, me)
            if previous != me {
                failure =
                    failure
                    ?? SQLiteError(code: SQLITE_MISUSE, message: "The pre-update hook was replaced during the capture (a session opened on the connection)")
            }
        }
        if let failure { throw failure }
        // As the session does, a touched table whose columns or key changed since the capture
        // began is refused (SQLITE_SCHEMA), not written in a shape it no longer has.
        if try connection.schemaReader.schemaVersion() != startVersion {
            for log in order where !log.rowKeys.isEmpty {
                guard let recorded = log.shape else { continue }
                let now = try connection.schemaReader.captureShape(ofTable: log.changesetName, atTransactionStart: false)
                guard let now, now.matches(recorded) else {
                    throw SQLiteError(code: SQLITE_SCHEMA, message: "The table \(log.changesetName) changed its columns or key during the capture")
                }
            }
        }
        // One byte array for the whole changeset, copied into `Data` once.
        var output: [UInt8] = []
        for log in order where !log.rowKeys.isEmpty {
            guard let shape = log.shape else { continue }
            try write(log, shape, into: &output)
        }
        if let failure { throw failure }
        return Changeset(data: Data(output))
    }

    private func write(_ log: TableLog, _ shape: CaptureTableShape, into output: inout [UInt8]) throws {
        var changes: [UInt8] = []
        var inserts: [UInt8] = []
        var current: [UInt8] = []
        var new: [UInt8] = []
        var foundKey: [UInt8] = []
        var currentRanges: [Range<Int>] = []
        var oldRanges: [Range<Int>] = []
        let handle = connection.handle
        try connection.withBookkeeping {
            try connection.withStatement(cachedFor: shape.selectByKey) { statement in
                let select = statement.statementHandle
                guard Int(sqlite3_column_count(select)) == shape.columnCount else {
                    throw SQLiteError(code: SQLITE_SCHEMA, message: "The columns of \(log.changesetName) changed during the capture")
                }
                for row in log.rowKeys.indices {
                    let key = log.rowKeys[row]
                    // Read the row again by its key.
                    sqlite3_reset(select)
                    let found: Bool = try key.withUnsafeBytes { bytes in
                        var offset = 0
                        for parameter in 1...shape.keyColumns.count {
                            ChangesetWriter.bind(bytes, &offset, to: select, at: Int32(parameter))
                        }
                        let code = sqlite3_step(select)
                        guard code == SQLITE_ROW || code == SQLITE_DONE else {
                            throw SQLiteError(handle: handle, code: code)
                        }
                        guard code == SQLITE_ROW else { return false }
                        current.removeAll(keepingCapacity: true)
                        for column in 0..<Int32(shape.columnCount) {
                            ChangesetWriter.append(column: column, of: select, to: &current)
                        }
                        return true
                    }
                    sqlite3_clear_bindings(select)
                    var exists = found
                    if found {
                        ChangesetWriter.fieldRanges(current, count: shape.columnCount, into: &currentRanges)
                        // Found under a key SQLite calls equal but with other bytes: the same row
                        // (an affinity's representation), unless that other key is one this
                        // capture tracks itself (a key renamed under its collation: this one is gone).
                        foundKey.removeAll(keepingCapacity: true)
                        for column in shape.keyColumns {
                            let start = foundKey.count
                            foundKey.append(contentsOf: current[currentRanges[column]])
                            ChangesetWriter.normalizeKeyField(&foundKey, at: start)
                        }
                        if foundKey != key, log.index[foundKey] != nil { exists = false }
                    }
                    let indirect: UInt8 = log.indirect[row] ? 1 : 0
                    switch (log.olds[row], exists) {
                    case (nil, true):
                        inserts.append(0x12)
                        inserts.append(indirect)
                        inserts.append(contentsOf: current)
                    case (let old?, false):
                        changes.append(0x09)
                        changes.append(indirect)
                        changes.append(contentsOf: old)
                    case (let old?, true):
                        ChangesetWriter.fieldRanges(old, count: shape.columnCount, into: &oldRanges)
                        // The key kept its value but not its storage class (1 made 1.0 in an
                        // untyped key): the DELETE of the old row and the INSERT of the new.
                        if shape.keyColumns.contains(where: { !old[oldRanges[$0]].elementsEqual(current[currentRanges[$0]]) }) {
                            changes.append(0x09)
                            changes.append(indirect)
                            changes.append(contentsOf: old)
                            inserts.append(0x12)
                            inserts.append(indirect)
                            inserts.append(contentsOf: current)
                            continue
                        }
                        var changed = false
                        for column in 0..<shape.columnCount where shape.keyFlags[column] == 0 {
                            if !ChangesetWriter.sameValue(old, oldRanges[column], current, currentRanges[column]) {
                                changed = true
                                break
                            }
                        }
                        guard changed else { continue }
                        changes.append(0x17)
                        changes.append(indirect)
                        new.removeAll(keepingCapacity: true)
                        for column in 0..<shape.columnCount {
                            let isKey = shape.keyFlags[column] != 0
                            let differs = !isKey && !ChangesetWriter.sameValue(old, oldRanges[column], current, currentRanges[column])
                            if isKey || differs {
                                changes.append(contentsOf: old[oldRanges[column]])
                            } else {
                                changes.append(0)
                            }
                            if differs { new.append(contentsOf: current[currentRanges[column]]) } else { new.append(0) }
                        }
                        changes.append(contentsOf: new)
                    case (nil, false):
                        continue
                    }
                }
            }
        }
        guard !changes.isEmpty || !inserts.isEmpty else { return }
        output.append(UInt8(ascii: "T"))
        ChangesetFormat.appendVarint(UInt64(shape.columnCount), to: &output)
        output.append(contentsOf: shape.keyFlags)
        output.append(contentsOf: log.changesetName.utf8)
        output.append(0)
        // Each table's INSERTs after its other changes, so a key renamed under its collation (a
        // DELETE and an INSERT) applies in order.
        output.append(contentsOf: changes)
        output.append(contentsOf: inserts)
    }
}

/// A connection's idle hook recorder, kept for its next capture.
final class IdleHookRecorder {
    static let slot = ConnectionSlot { IdleHookRecorder() }
    var recorder: HookRecorder?
}

/// The pre-update hook's callback: hands the event to the capture it was installed for.
private func preupdateCallback(
    _ context: UnsafeMutableRawPointer?, _ db: OpaquePointer?, _ operation: Int32, _ database: UnsafePointer<CChar>?,
    _ table: UnsafePointer<CChar>?, _ oldRowID: Int64, _ newRowID: Int64
) {
    guard let context else { return }
    Unmanaged<HookRecorder>.fromOpaque(context).takeUnretainedValue().event(db, operation, database, table)
}

/// Writing SQLite's changeset record fields (`sqlite3session.c`): a type byte (0 undefined,
/// 1 INTEGER, 2 REAL, 3 TEXT, 4 BLOB, 5 NULL), then 8 big-endian bytes for a number, or a varint
/// length and the bytes for TEXT and BLOB.
enum ChangesetWriter {
    @inline(__always)
    static func appendBigEndian(_ value: UInt64, to output: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { output.append(contentsOf: $0) }
    }

    static func appendBytes(_ type: UInt8, _ pointer: UnsafeRawPointer?, _ count: Int, to output: inout [UInt8]) {
        output.append(type)
        ChangesetFormat.appendVarint(UInt64(count), to: &output)
        if count > 0, let pointer { output.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: count)) }
    }

    /// Appends a `sqlite3_value`'s field.
    @inline(__always)
    static func append(value: OpaquePointer, to output: inout [UInt8]) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            output.append(1)
            appendBigEndian(UInt64(bitPattern: sqlite3_value_int64(value)), to: &output)
        case SQLITE_FLOAT:
            output.append(2)
            appendBigEndian(sqlite3_value_double(value).bitPattern, to: &output)
        case SQLITE_TEXT:
            let text = sqlite3_value_text(value)
            appendBytes(3, text.map(UnsafeRawPointer.init), Int(sqlite3_value_bytes(value)), to: &output)
        case SQLITE_BLOB:
            let blob = sqlite3_value_blob(value)
            appendBytes(4, blob, Int(sqlite3_value_bytes(value)), to: &output)
        default:
            output.append(5)
        }
    }

    /// Appends a result column's field.
    @inline(__always)
    static func append(column: Int32, of statement: OpaquePointer, to output: inout [UInt8]) {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            output.append(1)
            appendBigEndian(UInt64(bitPattern: sqlite3_column_int64(statement, column)), to: &output)
        case SQLITE_FLOAT:
            output.append(2)
            appendBigEndian(sqlite3_column_double(statement, column).bitPattern, to: &output)
        case SQLITE_TEXT:
            let text = sqlite3_column_text(statement, column)
            appendBytes(3, text.map(UnsafeRawPointer.init), Int(sqlite3_column_bytes(statement, column)), to: &output)
        case SQLITE_BLOB:
            let blob = sqlite3_column_blob(statement, column)
            appendBytes(4, blob, Int(sqlite3_column_bytes(statement, column)), to: &output)
        default:
            output.append(5)
        }
    }

    /// Makes the REAL key field at `start` (the last field of `bytes`) an INTEGER when its value is
    /// one: SQLite calls `3` and `3.0` the same key, and the hook reports a REAL column's key in
    /// either form (a new row's before the column's affinity, an old row's after).
    @inline(__always)
    static func normalizeKeyField(_ bytes: inout [UInt8], at start: Int) {
        guard bytes[start] == 2 else { return }
        let value = double(bytes, start + 1)
        guard value == value.rounded(), value >= -9_223_372_036_854_775_808.0, value < 9_223_372_036_854_775_808.0 else { return }
        bytes.removeSubrange(start...)
        bytes.append(1)
        appendBigEndian(UInt64(bitPattern: Int64(value)), to: &bytes)
    }

    /// The varint at `offset` of `bytes`, and where it ends.
    @inline(__always)
    static func varint<Bytes: RandomAccessCollection>(_ bytes: Bytes, _ offset: inout Int) -> UInt64 where Bytes.Element == UInt8, Bytes.Index == Int {
        // These bytes are the capture's own encoding: whole by construction.
        ChangesetFormat.varint(next: {
            guard offset < bytes.endIndex else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }) ?? 0
    }

    /// Where the field starting at `start` ends.
    @inline(__always)
    static func fieldEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var offset = start + 1
        switch bytes[start] {
        case 1, 2: return start + 9
        case 3, 4:
            let length = varint(bytes, &offset)
            return offset + Int(length)
        default: return offset
        }
    }

    /// The ranges of the `count` fields of a record.
    static func fieldRanges(_ bytes: [UInt8], count: Int, into ranges: inout [Range<Int>]) {
        ranges.removeAll(keepingCapacity: true)
        var offset = 0
        for _ in 0..<count {
            let end = fieldEnd(bytes, from: offset)
            ranges.append(offset..<end)
            offset = end
        }
    }

    /// Whether two fields hold the same value: the same type and the same bytes. A REAL compared
    /// by value would take `-0.0` for `0.0` and leave a change to the sign out of the changeset,
    /// so the row applied elsewhere would keep the old sign (a generated differential case).
    @inline(__always)
    static func sameValue(_ a: [UInt8], _ left: Range<Int>, _ b: [UInt8], _ right: Range<Int>) -> Bool {
        a[left].elementsEqual(b[right])
    }

    @inline(__always)
    static func double(_ bytes: [UInt8], _ offset: Int) -> Double {
        var bits: UInt64 = 0
        for index in offset..<(offset + 8) { bits = (bits << 8) | UInt64(bytes[index]) }
        return Double(bitPattern: bits)
    }

    /// Binds the field at `offset` of `bytes` (advancing past it) to a parameter; the bytes must
    /// outlive the statement's step (bound without a copy).
    static func bind(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int, to statement: OpaquePointer, at index: Int32) {
        let type = bytes[offset]
        offset += 1
        switch type {
        case 1, 2:
            var bits: UInt64 = 0
            for position in offset..<(offset + 8) { bits = (bits << 8) | UInt64(bytes[position]) }
            offset += 8
            if type == 1 {
                sqlite3_bind_int64(statement, index, Int64(bitPattern: bits))
            } else {
                sqlite3_bind_double(statement, index, Double(bitPattern: bits))
            }
        case 3, 4:
            let length = Int(varint(bytes, &offset))
            // Never a null pointer (the type byte precedes it), which would bind NULL.
            let start = bytes.baseAddress! + offset
            offset += length
            if type == 3 {
                sqlite3_bind_text(statement, index, start.assumingMemoryBound(to: CChar.self), Int32(length), nil)
            } else {
                sqlite3_bind_blob(statement, index, start, Int32(length), nil)
            }
        default:
            sqlite3_bind_null(statement, index)
        }
    }
}
