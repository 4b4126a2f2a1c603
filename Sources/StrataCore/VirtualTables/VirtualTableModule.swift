// The `sqlite3_module` behind every Swift virtual table: one set of C callbacks, shared by all
// registrations, each of which hands SQLite a retained `VirtualTableDefinition` as client data.
// SQLite's `sqlite3_vtab` and `sqlite3_vtab_cursor` must begin the structures it gets back, so
// each is allocated raw with a pointer to its Swift object stored right after it.
import StrataKernel
import StrataSchema
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// What one registered module knows: its schema, how it plans and how it scans.
@usableFromInline
final class VirtualTableDefinition {
    /// `CREATE TABLE x(…)` for `sqlite3_declare_vtab`.
    let declaration: String
    /// Columns a row supplies; later ones (a function's parameters) read the scan's `hidden` values.
    let rowColumnCount: Int
    let bestIndex: (VirtualTableQuery) -> IndexPlan?
    /// Starts a scan: the rows, and the values of the columns past `rowColumnCount`.
    let scan: (IndexPlan.Chosen, [BindingValue]) throws -> (rows: AnyIterator<[Bindable?]>, hidden: [BindingValue])

    @usableFromInline
    init(
        declaration: String, rowColumnCount: Int,
        bestIndex: @escaping (VirtualTableQuery) -> IndexPlan?,
        scan: @escaping (IndexPlan.Chosen, [BindingValue]) throws -> (rows: AnyIterator<[Bindable?]>, hidden: [BindingValue])
    ) {
        self.declaration = declaration
        self.rowColumnCount = rowColumnCount
        self.bestIndex = bestIndex
        self.scan = scan
    }

    /// `CREATE TABLE x("a", "b", "p" HIDDEN)`.
    @usableFromInline
    static func declaration(columns: [String], hidden: [String] = []) -> String {
        let all = columns.map(quoteIdentifier) + hidden.map { quoteIdentifier($0) + " HIDDEN" }
        return "CREATE TABLE x(" + all.joined(separator: ", ") + ")"
    }
}

/// The state of one open cursor.
private final class VirtualTableCursorState {
    let definition: VirtualTableDefinition
    var rows: AnyIterator<[Bindable?]>?
    var current: [Bindable?]?
    var hidden: [BindingValue] = []
    var rowid: Int64 = 0

    init(definition: VirtualTableDefinition) { self.definition = definition }
}

extension Connection {
    /// Registers `definition` as module `name` (an eponymous-only module: `xCreate` is NULL).
    /// SQLite releases the definition when the module is replaced, removed or the connection
    /// closes (`sqlite3_create_module_v2`'s destructor, called also when registration fails).
    @usableFromInline
    func registerVirtualTableModule(named name: String, _ definition: VirtualTableDefinition) throws {
        // A cached statement that read the table it replaces would keep the old one connected.
        statementCache.removeAll()
        let pointer = Unmanaged.passRetained(definition).toOpaque()
        let code = sqlite3_create_module_v2(handle, name, swiftVirtualTableModule, pointer) { pointer in
            pointer.map { Unmanaged<VirtualTableDefinition>.fromOpaque($0).release() }
        }
        try check(code)
    }
}

// MARK: - Raw structures

// SQLite's `sqlite3_vtab` and `sqlite3_vtab_cursor` are each allocated with one slot after them
// that holds a retained Swift object: the table's definition, the cursor's state.

/// Where the object slot after a `Header` starts (16-byte aligned).
private func headerSize<Header>(_ header: Header.Type) -> Int {
    (MemoryLayout<Header>.stride + 15) & ~15
}

private func objectSlot<Header>(of header: UnsafeMutablePointer<Header>) -> UnsafeMutablePointer<UnsafeMutableRawPointer> {
    (UnsafeMutableRawPointer(header) + headerSize(Header.self)).assumingMemoryBound(to: UnsafeMutableRawPointer.self)
}

/// `header` in memory SQLite can hold on to, followed by a slot that retains `object` until
/// `deallocate(_:releasing:)`.
private func allocate<Header>(_ header: Header, retaining object: AnyObject) -> UnsafeMutablePointer<Header> {
    let raw = UnsafeMutableRawPointer.allocate(
        byteCount: headerSize(Header.self) + MemoryLayout<UnsafeMutableRawPointer>.stride,
        alignment: 16)
    let pointer = raw.bindMemory(to: Header.self, capacity: 1)
    pointer.initialize(to: header)
    objectSlot(of: pointer).initialize(to: Unmanaged.passRetained(object).toOpaque())
    return pointer
}

/// Releases the `Object` that `allocate(_:retaining:)` stored after `header`, then frees both.
private func deallocate<Header, Object: AnyObject>(_ header: UnsafeMutablePointer<Header>, releasing _: Object.Type) {
    Unmanaged<Object>.fromOpaque(objectSlot(of: header).pointee).release()
    UnsafeMutableRawPointer(header).deallocate()
}

private func object<Header, Object: AnyObject>(of header: UnsafeMutablePointer<Header>, as _: Object.Type) -> Object {
    Unmanaged<Object>.fromOpaque(objectSlot(of: header).pointee).takeUnretainedValue()
}

private func definition(of vtab: UnsafeMutablePointer<sqlite3_vtab>) -> VirtualTableDefinition {
    object(of: vtab, as: VirtualTableDefinition.self)
}

private func state(of cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>) -> VirtualTableCursorState {
    object(of: cursor, as: VirtualTableCursorState.self)
}

/// A copy of `message` in memory from `sqlite3_malloc`, as `zErrMsg` and `idxStr` must be.
private func sqliteString(_ message: String) -> UnsafeMutablePointer<CChar>? {
    let utf8 = Array(message.utf8)
    guard let raw = sqlite3_malloc64(UInt64(utf8.count + 1)) else { return nil }
    let bytes = raw.assumingMemoryBound(to: UInt8.self)
    utf8.withUnsafeBufferPointer { bytes.update(from: $0.baseAddress!, count: utf8.count) }
    bytes[utf8.count] = 0
    return raw.assumingMemoryBound(to: CChar.self)
}

/// Makes `error`'s message the statement's (SQLite copies `zErrMsg` into the connection's error).
private func fail(_ vtab: UnsafeMutablePointer<sqlite3_vtab>?, _ error: Error) -> Int32 {
    guard let vtab else { return SQLITE_ERROR }
    let message = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
    sqlite3_free(vtab.pointee.zErrMsg)
    vtab.pointee.zErrMsg = sqliteString(message)
    return SQLITE_ERROR
}

private func setResult(_ value: BindingValue, _ context: OpaquePointer) {
    switch value {
    case .null: sqlite3_result_null(context)
    case .integer(let value): sqlite3_result_int64(context, value)
    case .real(let value): sqlite3_result_double(context, value)
    case .text(let value): Connection.FunctionResult.resultText(value, context)
    case .blob(let value):
        if value.isEmpty { sqlite3_result_zeroblob(context, 0); return }
        value.withUnsafeBytes { sqlite3_result_blob64(context, $0.baseAddress, UInt64($0.count), sqliteTransient) }
    }
}

private func constraintOperator(_ code: UInt8) -> VirtualTableConstraint.Operator {
    switch Int32(code) {
    case SQLITE_INDEX_CONSTRAINT_EQ: return .equal
    case SQLITE_INDEX_CONSTRAINT_GT: return .greaterThan
    case SQLITE_INDEX_CONSTRAINT_GE: return .greaterThanOrEqual
    case SQLITE_INDEX_CONSTRAINT_LT: return .lessThan
    case SQLITE_INDEX_CONSTRAINT_LE: return .lessThanOrEqual
    default: return .other(Int32(code))
    }
}

// MARK: - The module

/// The one module every Swift virtual table registers (SQLite keeps the pointer, never a copy).
nonisolated(unsafe) private let swiftVirtualTableModule: UnsafeMutablePointer<sqlite3_module> = {
    var module = sqlite3_module()
    module.iVersion = 1
    // xCreate stays NULL: the tables are eponymous only (no CREATE VIRTUAL TABLE … USING).
    module.xConnect = { db, client, _, _, vtabOut, errorOut in
        guard let db, let client, let vtabOut else { return SQLITE_MISUSE }
        let definition = Unmanaged<VirtualTableDefinition>.fromOpaque(client).takeUnretainedValue()
        let code = sqlite3_declare_vtab(db, definition.declaration)
        guard code == SQLITE_OK else {
            errorOut?.pointee = sqliteString("cannot declare \(definition.declaration)")
            return code
        }
        vtabOut.pointee = allocate(sqlite3_vtab(), retaining: definition)
        return SQLITE_OK
    }
    module.xDisconnect = { vtab in
        guard let vtab else { return SQLITE_OK }
        sqlite3_free(vtab.pointee.zErrMsg)
        deallocate(vtab, releasing: VirtualTableDefinition.self)
        return SQLITE_OK
    }
    module.xBestIndex = { vtab, info in
        guard let vtab, let info else { return SQLITE_MISUSE }
        let count = Int(info.pointee.nConstraint)
        var constraints: [VirtualTableConstraint] = []
        constraints.reserveCapacity(count)
        for index in 0..<count {
            let constraint = info.pointee.aConstraint[index]
            constraints.append(
                VirtualTableConstraint(
                    column: Int(constraint.iColumn), operator: constraintOperator(constraint.op),
                    isUsable: constraint.usable != 0))
        }
        let orderBy = (0..<Int(info.pointee.nOrderBy)).map { index in
            (column: Int(info.pointee.aOrderBy[index].iColumn), descending: info.pointee.aOrderBy[index].desc != 0)
        }
        let query = VirtualTableQuery(constraints: constraints, orderBy: orderBy, columnsUsed: info.pointee.colUsed)
        guard let plan = definition(of: vtab).bestIndex(query) else { return SQLITE_CONSTRAINT }
        for (position, constraint) in plan.arguments.enumerated() {
            guard constraints.indices.contains(constraint), constraints[constraint].isUsable,
                info.pointee.aConstraintUsage[constraint].argvIndex == 0
            else {
                return fail(vtab, VirtualTableError("bestIndex used constraint \(constraint), which is unusable, used twice or out of range"))
            }
            info.pointee.aConstraintUsage[constraint].argvIndex = Int32(position + 1)
            info.pointee.aConstraintUsage[constraint].omit = plan.omitted.contains(constraint) ? 1 : 0
        }
        info.pointee.idxNum = plan.number
        if let name = plan.name {
            info.pointee.idxStr = sqliteString(name)
            info.pointee.needToFreeIdxStr = 1
        }
        info.pointee.orderByConsumed = plan.orderByConsumed ? 1 : 0
        info.pointee.estimatedCost = plan.estimatedCost
        info.pointee.estimatedRows = plan.estimatedRows
        return SQLITE_OK
    }
    module.xOpen = { vtab, cursorOut in
        guard let vtab, let cursorOut else { return SQLITE_MISUSE }
        cursorOut.pointee = allocate(sqlite3_vtab_cursor(), retaining: VirtualTableCursorState(definition: definition(of: vtab)))
        return SQLITE_OK
    }
    module.xClose = { cursor in
        guard let cursor else { return SQLITE_OK }
        deallocate(cursor, releasing: VirtualTableCursorState.self)
        return SQLITE_OK
    }
    module.xFilter = { cursor, number, name, argumentCount, arguments in
        guard let cursor else { return SQLITE_MISUSE }
        let state = state(of: cursor)
        var values: [BindingValue] = []
        values.reserveCapacity(Int(argumentCount))
        for index in 0..<Int(argumentCount) {
            values.append(arguments?[index].map(BindingValue.init(reading:)) ?? .null)
        }
        let chosen = IndexPlan.Chosen(number: number, name: name.map { String(cString: $0) })
        state.rows = nil
        state.current = nil
        state.rowid = 0
        do {
            let scan = try state.definition.scan(chosen, values)
            state.rows = scan.rows
            state.hidden = scan.hidden
            state.current = scan.rows.next()
        } catch {
            return fail(cursor.pointee.pVtab, error)
        }
        return SQLITE_OK
    }
    module.xNext = { cursor in
        guard let cursor else { return SQLITE_MISUSE }
        let state = state(of: cursor)
        state.current = state.rows?.next()
        state.rowid += 1
        return SQLITE_OK
    }
    module.xEof = { cursor in
        guard let cursor else { return 1 }
        return state(of: cursor).current == nil ? 1 : 0
    }
    module.xColumn = { cursor, context, column in
        guard let cursor, let context else { return SQLITE_MISUSE }
        let state = state(of: cursor)
        let index = Int(column)
        if let row = state.current, index < row.count, index < state.definition.rowColumnCount {
            setResult(row[index]?.bindingValue ?? .null, context)
        } else if index >= state.definition.rowColumnCount, index - state.definition.rowColumnCount < state.hidden.count {
            setResult(state.hidden[index - state.definition.rowColumnCount], context)
        } else {
            sqlite3_result_null(context)
        }
        return SQLITE_OK
    }
    module.xRowid = { cursor, rowid in
        guard let cursor else { return SQLITE_MISUSE }
        rowid?.pointee = state(of: cursor).rowid
        return SQLITE_OK
    }
    let pointer = UnsafeMutablePointer<sqlite3_module>.allocate(capacity: 1)
    pointer.initialize(to: module)
    return pointer
}()

/// A virtual table's own misuse, reported as the statement's error.
struct VirtualTableError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
