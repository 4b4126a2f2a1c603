import StrataKernel
import StrataSchema
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A table-valued function written in Swift: called in a FROM clause with arguments, it yields
/// rows.
///
/// ```swift
/// let split = TableValuedFunction(name: "split", columns: ["value", "ordinal"], parameters: ["text", "separator"]) { arguments in
///     let text = arguments[0].textValue ?? "", separator = arguments[1].textValue ?? ","
///     return text.components(separatedBy: separator).enumerated().map { [$1, $0 + 1] }
/// }
/// try connection.createTableValuedFunction(split)
/// let parts: [String] = try connection.query("SELECT value FROM split('a,b,c', ',') ORDER BY ordinal")
/// ```
/// The parameters are hidden columns of the table (`split.text`, `split.separator`); a call
/// passes them in order, or a WHERE clause sets them (`WHERE text = ?`). One that is not given
/// arrives as `.null`. A parameter whose value comes from a table not yet scanned in a join
/// makes SQLite scan that table first.
public struct TableValuedFunction: Sendable {
    /// The function's name in SQL.
    public let name: String
    /// The output columns, in order.
    public let columns: [String]
    /// The parameters, in call order.
    public let parameters: [String]
    @usableFromInline let makeRows: @Sendable ([BindingValue]) throws -> AnyIterator<[Bindable?]>

    // The closure that makes the rows runs on whichever connection scans: it captures the
    // sequence's type, which must not be bound to an actor (SendableMetatype, Swift 6.2).
    #if compiler(>=6.2)
    /// Declares a table-valued function whose rows are any sequence: an array, a lazy map, your
    /// own type.
    ///
    /// The sequence's type is known where you call this, so its iteration is compiled for that
    /// type: a row of `series` costs about 1,400 instructions in all, where one from an
    /// `any Sequence` costs about 5,100 (the standard library's generic code).
    /// - Parameters:
    ///   - name: The function's name in SQL.
    ///   - columns: The names of the columns each row has, in order.
    ///   - parameters: The names of its arguments (hidden columns), in order.
    ///   - rows: Called once per scan with one value per parameter (`.null` when not given);
    ///     returns the rows, each with one value per column. An error it throws fails the
    ///     statement with the error's message.
    @inlinable
    public init<Rows: Sequence & SendableMetatype>(
        name: String, columns: [String], parameters: [String],
        rows: @escaping @Sendable (_ arguments: [BindingValue]) throws -> Rows
    ) where Rows.Element == [Bindable?], Rows.Iterator: SendableMetatype {
        self.init(
            name: name, columns: columns, parameters: parameters,
            iterators: { arguments in
                var iterator = try rows(arguments).makeIterator()
                return AnyIterator { iterator.next() }
            })
    }
    #else
    /// Declares a table-valued function whose rows are any sequence, iterated as compiled for
    /// its type.
    /// - Parameters:
    ///   - name: The function's name in SQL.
    ///   - columns: The names of the columns each row has, in order.
    ///   - parameters: The names of its arguments (hidden columns), in order.
    ///   - rows: Called once per scan with the arguments; returns the rows.
    @inlinable
    public init<Rows: Sequence>(
        name: String, columns: [String], parameters: [String],
        rows: @escaping @Sendable (_ arguments: [BindingValue]) throws -> Rows
    ) where Rows.Element == [Bindable?] {
        self.init(
            name: name, columns: columns, parameters: parameters,
            iterators: { arguments in
                var iterator = try rows(arguments).makeIterator()
                return AnyIterator { iterator.next() }
            })
    }
    #endif

    /// Declares a table-valued function whose closure returns `any Sequence` (when its branches
    /// return sequences of different types). Prefer the generic form, which iterates faster.
    /// - Parameters:
    ///   - name: The function's name in SQL.
    ///   - columns: The names of the columns each row has, in order.
    ///   - parameters: The names of its arguments (hidden columns), in order.
    ///   - rows: Called once per scan with one value per parameter (`.null` when not given);
    ///     returns the rows, each with one value per column. An error it throws fails the
    ///     statement with the error's message.
    @_disfavoredOverload
    public init(
        name: String, columns: [String], parameters: [String],
        rows: @escaping @Sendable (_ arguments: [BindingValue]) throws -> any Sequence<[Bindable?]>
    ) {
        self.init(
            name: name, columns: columns, parameters: parameters,
            iterators: { arguments in
                var iterator = try rows(arguments).makeIterator()
                return AnyIterator { iterator.next() }
            })
    }

    @usableFromInline
    init(
        name: String, columns: [String], parameters: [String],
        iterators: @escaping @Sendable ([BindingValue]) throws -> AnyIterator<[Bindable?]>
    ) {
        self.name = name
        self.columns = columns
        self.parameters = parameters
        self.makeRows = iterators
    }

    /// The most parameters a function may have: one bit of SQLite's 32-bit plan number each
    /// (the sign bit left alone).
    public static let maximumParameterCount = 31

    /// Plans one call: every parameter with a usable `=` constraint becomes an argument, in
    /// parameter order; bit `i` of the plan's number says parameter `i` was given. An unusable
    /// one refuses the plan, so SQLite scans the table that supplies it first.
    func bestIndex(_ query: VirtualTableQuery) -> IndexPlan? {
        var plan = IndexPlan(estimatedCost: 1_000_000, estimatedRows: 1_000)
        var mask: Int32 = 0
        for parameter in parameters.indices {
            let column = columns.count + parameter
            let matching = query.constraints.indices.filter {
                query.constraints[$0].column == column && query.constraints[$0].operator == .equal
            }
            if matching.contains(where: { !query.constraints[$0].isUsable }) && !matching.contains(where: { query.constraints[$0].isUsable }) {
                return nil
            }
            guard let usable = matching.first(where: { query.constraints[$0].isUsable }) else { continue }
            plan.use(usable)
            mask |= 1 << Int32(parameter)
        }
        plan.number = mask
        plan.estimatedCost = 1_000_000 / Double(1 << min(plan.arguments.count, 20))
        return plan
    }

    var definition: VirtualTableDefinition {
        let parameterCount = parameters.count
        let makeRows = makeRows
        return VirtualTableDefinition(
            declaration: VirtualTableDefinition.declaration(columns: columns, hidden: parameters),
            rowColumnCount: columns.count,
            bestIndex: bestIndex,
            scan: { plan, given in
                var arguments = [BindingValue](repeating: .null, count: parameterCount)
                var next = given.makeIterator()
                for parameter in 0..<parameterCount where plan.number & (1 << Int32(parameter)) != 0 {
                    arguments[parameter] = next.next() ?? .null
                }
                return (try makeRows(arguments), arguments)
            }
        )
    }
}

extension Connection {
    /// Registers a table-valued function on this connection (replacing one of the same name).
    /// It is released when replaced or when the connection closes.
    /// - Throws: `SQLiteError` when SQLite refuses the module, or (`SQLITE_RANGE`) for a
    ///   function of more than ``TableValuedFunction/maximumParameterCount`` parameters.
    public func createTableValuedFunction(_ function: TableValuedFunction) throws {
        // A plan says which parameters were given in the bits of SQLite's 32-bit `idxNum`.
        guard function.parameters.count <= TableValuedFunction.maximumParameterCount else {
            throw SQLiteError(
                code: SQLITE_RANGE,
                message:
                    "Table-valued function \(function.name.debugDescription) has \(function.parameters.count) parameters; at most \(TableValuedFunction.maximumParameterCount) are supported"
            )
        }
        try registerVirtualTableModule(named: function.name, function.definition)
    }

    /// Registers `source` as a read-only eponymous virtual table named `name` on this
    /// connection (replacing one of the same name); it is released when replaced or when the
    /// connection closes.
    /// - Throws: `SQLiteError` when SQLite refuses the module.
    // Inlinable so the scan's iteration is compiled for `Source.Rows` where it is known: through
    // generic code each row would cost thousands of instructions (see `TableValuedFunction`).
    @inlinable
    public func createVirtualTable<Source: VirtualTableSource>(named name: String, source: Source) throws {
        let columnCount = source.columns.count
        let definition = VirtualTableDefinition(
            declaration: VirtualTableDefinition.declaration(columns: source.columns),
            rowColumnCount: columnCount,
            bestIndex: { source.bestIndex($0) },
            scan: { plan, arguments in
                // A closure, not `AnyIterator(iterator)`: the standard library's iterator box runs
                // its generic code unspecialized.
                var iterator = try source.rows(for: plan, arguments: arguments).makeIterator()
                return (AnyIterator { iterator.next() }, [])
            }
        )
        try registerVirtualTableModule(named: name, definition)
    }

    /// Removes a table-valued function or virtual table registered under `name`.
    /// - Throws: `SQLiteError` when SQLite refuses (a statement using it is still running).
    public func removeVirtualTable(named name: String) throws {
        statementCache.removeAll()
        try check(sqlite3_create_module_v2(handle, name, nil, nil, nil))
    }
}

extension Database {
    /// Registers a table-valued function on the writer now and on every reader connection,
    /// open or opened later (each gets it before its next use).
    /// - Throws: `SQLiteError` when the writer refuses it.
    public func createTableValuedFunction(_ function: TableValuedFunction) throws {
        try registerOnEveryConnection { try $0.createTableValuedFunction(function) }
    }

    /// Registers `source` as a read-only eponymous virtual table on the writer now and on every
    /// reader connection, open or opened later.
    /// - Throws: `SQLiteError` when the writer refuses it.
    @inlinable
    public func createVirtualTable<Source: VirtualTableSource & Sendable>(named name: String, source: Source) throws {
        try registerOnEveryConnection { try $0.createVirtualTable(named: name, source: source) }
    }

    @usableFromInline
    package func registerOnEveryConnection(_ register: @escaping @Sendable (Connection) throws -> Void) throws {
        try writerQueue.execute { try register($0) }
        readerPool.addRegistration(register)
    }
}
