// Functions: scalar and aggregate SQL functions and collations written in Swift.
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Connection {
    /// The body of a scalar SQL function: called for each invocation with its context and arguments.
    public typealias ScalarFunction = (ScalarFunctionContext, [FunctionValue]) -> FunctionResult
    /// Makes the fresh state object an aggregate function accumulates into for each group.
    public typealias AggregateContextObjectFactory = () -> AnyObject
    /// Folds one row's arguments into the group's state object.
    public typealias AggregateStepFunction = (AggregateFunctionContext, [FunctionValue]) -> Void
    /// Turns the group's accumulated state into the aggregate's result.
    public typealias AggregateFinalFunction = (AggregateFunctionContext) -> FunctionResult

    /// One argument of a SQL function call, read as the type you ask for (SQLite converts).
    public struct FunctionValue {
        /// SQLite's storage class of a value.
        public enum DataType: Sendable {
            /** NULL, INTEGER, REAL (`double`), TEXT or BLOB (`data`). */
            case null, integer, double, text, data

            /// SQift's spelling of a kernel storage class (`double` for REAL, `data` for BLOB).
            public init(_ storageClass: SQLiteStorageClass) {
                switch storageClass {
                case .null: self = .null
                case .integer: self = .integer
                case .float: self = .double
                case .text: self = .text
                case .blob: self = .data
                }
            }
        }

        let value: SQLiteValueHandle

        init(value: SQLiteValueHandle) { self.value = value }

        /// The value as a 32-bit integer, converted by SQLite (0 for NULL).
        public var integer: Int32 { sqlite3_value_int(value) }
        /// The value as a 64-bit integer, converted by SQLite (0 for NULL).
        public var long: Int64 { sqlite3_value_int64(value) }
        /// The value as a floating-point number, converted by SQLite (0.0 for NULL).
        public var double: Double { sqlite3_value_double(value) }
        /// The value as text; `""` for NULL (never traps).
        public var text: String { readText(value) }
        /// The value as a blob; empty for NULL.
        public var data: Data { readBlob(value) }
        /// The blob bytes in place, valid only during the function call.
        public var buffer: UnsafeRawBufferPointer {
            let count = Int(sqlite3_value_bytes(value))
            return UnsafeRawBufferPointer(start: sqlite3_value_blob(value), count: count)
        }
        /// The text parsed with `bindingDateFormatter`, or nil.
        public var date: Date? { isText ? BindingDateFormat.date(from: text) : nil }

        /// The value's storage class as passed, before any conversion.
        public var type: DataType { DataType(SQLiteStorageClass(of: value)) }
        /// The type after SQLite's numeric affinity is applied (`'12'` is an integer).
        public var numericType: DataType { DataType(SQLiteStorageClass(code: sqlite3_value_numeric_type(value))) }

        /// The argument's storage class in the kernel's type.
        public var storageClass: SQLiteStorageClass { SQLiteStorageClass(of: value) }

        /// Whether the argument is SQL NULL.
        public var isNull: Bool { type == .null }
        /// Whether the argument is stored as an INTEGER.
        public var isInteger: Bool { type == .integer }
        /// Whether the argument is stored as a REAL.
        public var isDouble: Bool { type == .double }
        /// Whether the argument is stored as TEXT.
        public var isText: Bool { type == .text }
        /// Whether the argument is stored as a BLOB.
        public var isData: Bool { type == .data }
    }

    /// What a SQL function returns.
    public enum FunctionResult {
        /// Returns SQL NULL.
        case null
        /// Returns a 32-bit INTEGER.
        case integer(Int32)
        /// Returns a 64-bit INTEGER.
        case long(Int64)
        /// Returns a REAL.
        case double(Double)
        /// Returns TEXT.
        case text(String)
        /// Returns the date as TEXT in the binding date format, so it reads back as a `Date`.
        case date(Date)
        /// Returns a BLOB (an empty `Data` returns an empty BLOB, not NULL).
        case data(Data)
        /// A blob of this many zero bytes, without allocating it in Swift.
        case zeroData(UInt64)
        /// Fails the statement with `message`, and `code` (default `SQLITE_ERROR`).
        case error(message: String, code: Int32?)

        func apply(to context: SQLiteContextHandle) {
            switch self {
            case .null: sqlite3_result_null(context)
            case .integer(let value): sqlite3_result_int(context, value)
            case .long(let value): sqlite3_result_int64(context, value)
            case .double(let value): sqlite3_result_double(context, value)
            case .text(let value): Self.resultText(value, context)
            case .date(let value):
                do { Self.resultText(try BindingDateFormat.string(from: value), context) } catch {
                    sqlite3_result_error(context, error.localizedDescription, -1)
                }
            case .data(let value):
                if value.isEmpty { sqlite3_result_zeroblob(context, 0); return }
                value.withUnsafeBytes { sqlite3_result_blob64(context, $0.baseAddress, UInt64($0.count), sqliteTransient) }
            case .zeroData(let count):
                if sqlite3_result_zeroblob64(context, count) != SQLITE_OK { sqlite3_result_error_toobig(context) }
            case .error(let message, let code):
                sqlite3_result_error(context, message, -1)
                if let code { sqlite3_result_error_code(context, code) }
            }
        }

        package static func resultText(_ text: String, _ context: SQLiteContextHandle) {
            var text = text
            text.withUTF8 { buffer in
                guard let base = buffer.baseAddress, buffer.count > 0 else {
                    sqlite3_result_text(context, "", 0, sqliteTransient)
                    return
                }
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    sqlite3_result_text64(context, $0, UInt64(buffer.count), sqliteTransient, UInt8(SQLITE_UTF8))
                }
            }
        }
    }

    /// The context of one scalar function call.
    public struct ScalarFunctionContext {
        let context: SQLiteContextHandle

        /// Per-argument data SQLite keeps between calls while the argument is constant (a compiled
        /// pattern, say). See <https://www.sqlite.org/c3ref/get_auxdata.html>.
        public var auxilaryData: AuxilaryData { AuxilaryData(context: context) }

        /// Slots, indexed by argument number, where a function caches an object derived from a constant argument.
        public struct AuxilaryData {
            let context: SQLiteContextHandle

            /// The object cached for argument `index`, or nil; SQLite may drop it between calls, so recompute when nil.
            public subscript(index: Int32) -> AnyObject? {
                get {
                    sqlite3_get_auxdata(context, index).map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() }
                }
                nonmutating set {
                    guard let newValue else { sqlite3_set_auxdata(context, index, nil, nil); return }
                    sqlite3_set_auxdata(context, index, Unmanaged.passRetained(newValue).toOpaque()) { pointer in
                        pointer.map { Unmanaged<AnyObject>.fromOpaque($0).release() }
                    }
                }
            }
        }
    }

    /// The context of one aggregate evaluation (one group).
    public final class AggregateFunctionContext {
        let context: SQLiteContextHandle
        let factory: AggregateContextObjectFactory

        init(context: SQLiteContextHandle, factory: @escaping AggregateContextObjectFactory) {
            self.context = context
            self.factory = factory
        }

        /// The group's object, made by the factory on the first step.
        ///
        /// When SQLite cannot allocate the group's slot (out of memory) the statement fails with
        /// `SQLITE_NOMEM`, and this call returns a fresh object that is not kept.
        public var stepObject: AnyObject {
            guard let raw = sqlite3_aggregate_context(context, Int32(MemoryLayout<UnsafeMutableRawPointer>.size)) else {
                sqlite3_result_error_nomem(context)
                return factory()
            }
            let slot = raw.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
            if let existing = slot.pointee { return Unmanaged<AnyObject>.fromOpaque(existing).takeUnretainedValue() }
            let object = factory()
            slot.pointee = Unmanaged.passRetained(object).toOpaque()
            return object
        }

        /// The group's object in the final call, or nil when no row was stepped (an empty group).
        public var finalObject: AnyObject? {
            guard let raw = sqlite3_aggregate_context(context, 0) else { return nil }
            let slot = raw.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
            return slot.pointee.map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() }
        }

        /// Releases the group's object after the final call.
        func releaseObject() {
            guard let raw = sqlite3_aggregate_context(context, 0) else { return }
            let slot = raw.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
            slot.pointee.map { Unmanaged<AnyObject>.fromOpaque($0).release() }
            slot.pointee = nil
        }
    }

    struct AggregateFunctions {
        let factory: AggregateContextObjectFactory
        let step: AggregateStepFunction
        let final: AggregateFinalFunction
    }

    /// Adds (or replaces) a scalar SQL function.
    ///
    /// ```swift
    /// try connection.addScalarFunction(named: "twice", argumentCount: 1, deterministic: true) { _, values in
    ///     .long(values[0].long * 2)
    /// }
    /// ```
    /// A negative `argumentCount` accepts any number of arguments.
    /// See <https://www.sqlite.org/c3ref/create_function.html>.
    public func addScalarFunction(
        named name: String,
        argumentCount: Int8,
        deterministic: Bool = false,
        function: @escaping ScalarFunction
    ) throws {
        let box = CallbackBox(function)
        let code = sqlite3_create_function_v2(
            handle, name, Int32(max(argumentCount, -1)), functionFlags(deterministic), box.retainedPointer(),
            { context, count, arguments in
                guard let context, let pointer = sqlite3_user_data(context) else { return }
                let function = CallbackBox<ScalarFunction>.from(pointer)
                let values = functionValues(count, arguments)
                function(ScalarFunctionContext(context: context), values).apply(to: context)
            },
            nil, nil,
            { CallbackBox<ScalarFunction>.release($0) }
        )
        try check(code)
    }

    /// Adds (or replaces) an aggregate SQL function: the factory makes one object per group, the
    /// step function accumulates into it, the final function makes the result.
    public func addAggregateFunction(
        named name: String,
        argumentCount: Int8,
        deterministic: Bool = false,
        contextObjectFactory: @escaping AggregateContextObjectFactory,
        stepFunction: @escaping AggregateStepFunction,
        finalFunction: @escaping AggregateFinalFunction
    ) throws {
        let box = CallbackBox(AggregateFunctions(factory: contextObjectFactory, step: stepFunction, final: finalFunction))
        let code = sqlite3_create_function_v2(
            handle, name, Int32(max(argumentCount, -1)), functionFlags(deterministic), box.retainedPointer(),
            nil,
            { context, count, arguments in
                guard let context, let pointer = sqlite3_user_data(context) else { return }
                let functions = CallbackBox<AggregateFunctions>.from(pointer)
                let aggregate = AggregateFunctionContext(context: context, factory: functions.factory)
                functions.step(aggregate, functionValues(count, arguments))
            },
            { context in
                guard let context, let pointer = sqlite3_user_data(context) else { return }
                let functions = CallbackBox<AggregateFunctions>.from(pointer)
                let aggregate = AggregateFunctionContext(context: context, factory: functions.factory)
                functions.final(aggregate).apply(to: context)
                aggregate.releaseObject()
            },
            { CallbackBox<AggregateFunctions>.release($0) }
        )
        try check(code)
    }

    /// Removes a function added with the same name and argument count.
    public func removeFunction(named name: String, argumentCount: Int8) throws {
        try check(sqlite3_create_function_v2(handle, name, Int32(max(argumentCount, -1)), SQLITE_UTF8, nil, nil, nil, nil, nil))
    }

    private func functionFlags(_ deterministic: Bool) -> Int32 {
        SQLITE_UTF8 | (deterministic ? SQLITE_DETERMINISTIC : 0)
    }
}

private func functionValues(_ count: Int32, _ arguments: UnsafeMutablePointer<SQLiteValueHandle?>?) -> [Connection.FunctionValue] {
    guard let arguments, count > 0 else { return [] }
    return (0..<Int(count)).compactMap { arguments[$0].map(Connection.FunctionValue.init(value:)) }
}
