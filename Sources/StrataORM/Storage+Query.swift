import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Storage {
    // MARK: - getAll, forEach

    /// Every object of the table, filtered and ordered by `constraints`.
    ///
    /// ```swift
    /// let allUsers: [User] = try storage.getAll()
    /// let some: [User] = try storage.getAll(where_(\User.id < 10), orderBy(\User.lastName), limit(5))
    /// ```
    /// - Throws: `ORMError` for an unmapped type or key path, or a value that does not convert;
    ///   `SQLiteError`.
    @inlinable
    public func getAll<T: Initializable>(_ constraints: SelectConstraint...) throws -> [T] {
        try getAll(all: T.self, constraints)
    }

    /// Every object of `T`'s table, filtered and ordered by `constraints`.
    ///
    /// - Throws: as ``getAll(_:)``.
    @inlinable
    public func getAll<T: Initializable>(all type: T.Type, _ constraints: SelectConstraint...) throws -> [T] {
        try getAll(all: type, constraints)
    }

    @inlinable
    func getAll<T: Initializable>(all type: T.Type, _ constraints: [SelectConstraint]) throws -> [T] {
        let table = try schema.table(for: T.self)
        return try withStatement(fragment: selectAllQuery(table, constraints)) { statement, handle in
            var result: [T] = []
            while try statement.step() {
                result.append(try decode(table, from: handle))
            }
            return result
        }
    }

    /// Calls `callback` with each object of `T`'s table, one row at a time (no array is built).
    ///
    /// ```swift
    /// try storage.forEach(User.self, where_(\User.typeId == 3)) { user in print(user.firstName) }
    /// ```
    /// - Throws: as ``getAll(_:)``, and what `callback` throws (which stops the iteration).
    @inlinable
    public func forEach<T: Initializable>(_ type: T.Type, _ constraints: SelectConstraint..., callback: (T) throws -> Void) throws {
        try forEach(type, constraints, callback: callback)
    }

    @inlinable
    func forEach<T: Initializable>(_ type: T.Type, _ constraints: [SelectConstraint], callback: (T) throws -> Void) throws {
        let table = try schema.table(for: T.self)
        try withStatement(fragment: selectAllQuery(table, constraints)) { statement, handle in
            while try statement.step() {
                try callback(try decode(table, from: handle))
            }
        }
    }

    /// `SELECT` every column of `table` in order, with the clauses of `constraints`.
    @usableFromInline
    func selectAllQuery(_ table: AnyTable, _ constraints: [SelectConstraint]) throws -> SQLFragment {
        var serializer = SQLSerializer(schema: schema)
        return try QueryClauses(constraints).statementClauses(&serializer)
            .select(SQLFragment(sql: table.columnList), from: .identifier(table.name))
    }

    /// Runs `body` with the cached statement for `fragment`'s SQL (written once per call, never
    /// per row), its values bound.
    @usableFromInline
    func withStatement<R>(fragment: SQLFragment, _ body: (Strata.Statement, SQLiteStatementHandle) throws -> R) throws -> R {
        let (sql, arguments) = try fragment.rendered
        return try withStatement(query: sql) { statement, handle in
            for (offset, value) in arguments.enumerated() {
                let index = Int32(offset + 1)
                let code = value.bind(to: handle, at: index)
                if code != SQLITE_OK { try statement.checkBindResult(code, index: index) }
            }
            return try body(statement, handle)
        }
    }

    // MARK: - select

    /// The values of one expression for each row.
    ///
    /// ```swift
    /// let ids: [Int] = try storage.select(\User.id, where_(\User.typeId == 3))
    /// let lengths: [Int?] = try storage.select(length(\User.firstName), from(User.self))
    /// ```
    /// - Throws: `ORMError.invalidQuery` when no table can be told; others as ``getAll(_:)``.
    public func select<E: ResultExpression>(_ expression: E, _ constraints: SelectConstraint...) throws -> [E.Value]
    where E.Value: SelectableValue {
        try select([expression], constraints) { handle in try read(E.Value.self, handle, 0) }
    }

    /// The values of two expressions for each row, as tuples.
    ///
    /// - Throws: as `select(_:_:)`.
    public func select<E1: ResultExpression, E2: ResultExpression>(
        _ first: E1, _ second: E2, _ constraints: SelectConstraint...
    ) throws -> [(E1.Value, E2.Value)] where E1.Value: SelectableValue, E2.Value: SelectableValue {
        try select([first, second], constraints) { handle in
            (try read(E1.Value.self, handle, 0), try read(E2.Value.self, handle, 1))
        }
    }

    /// The values of three expressions for each row, as tuples.
    ///
    /// - Throws: as `select(_:_:)`.
    public func select<E1: ResultExpression, E2: ResultExpression, E3: ResultExpression>(
        _ first: E1, _ second: E2, _ third: E3, _ constraints: SelectConstraint...
    ) throws -> [(E1.Value, E2.Value, E3.Value)]
    where E1.Value: SelectableValue, E2.Value: SelectableValue, E3.Value: SelectableValue {
        try select([first, second, third], constraints) { handle in
            (try read(E1.Value.self, handle, 0), try read(E2.Value.self, handle, 1), try read(E3.Value.self, handle, 2))
        }
    }

    func read<V: SelectableValue>(_ type: V.Type, _ handle: SQLiteStatementHandle, _ index: Int32) throws -> V {
        guard let value = V.selectValue(from: handle, at: index) else { throw resultDoesNotConvert(V.self, handle, index) }
        return value
    }

    /// The error for a result column that is NULL for a non-optional type or does not convert.
    func resultDoesNotConvert(_ type: Any.Type, _ handle: SQLiteStatementHandle, _ index: Int32) -> ORMError {
        let name = sqlite3_column_name(handle, index).map { String(cString: $0) } ?? "\(index)"
        return ORMError.valueDoesNotConvert(table: "result", column: name, type: "\(type)")
    }

    /// Builds `SELECT expressions FROM tables clauses`, runs it and reads each row with `readRow`.
    func select<R>(
        _ expressions: [any Expression], _ constraints: [SelectConstraint],
        readRow: (SQLiteStatementHandle) throws -> R
    ) throws -> [R] {
        let clauses = QueryClauses(constraints)
        var serializer = SQLSerializer(schema: schema)
        for (index, expression) in expressions.enumerated() {
            if index > 0 { serializer.append(", ") }
            try serializer.append(expression)
        }
        var clauseSerializer = SQLSerializer(schema: schema)
        let rendered = try clauses.statementClauses(&clauseSerializer)
        var tables = try clauses.fromTypes.map { try schema.table(forAnyType: $0) }
        if tables.isEmpty {
            tables = serializer.referencedTables
            for table in clauseSerializer.referencedTables where !tables.contains(where: { $0 === table }) {
                tables.append(table)
            }
        }
        guard !tables.isEmpty else {
            throw ORMError.invalidQuery("the select names no column of a table: add from(Type.self)")
        }
        let source = tables.map { SQLFragment.identifier($0.name) }.joined(separator: ", ")
        return try withStatement(fragment: rendered.select(serializer.fragment, from: source)) { statement, handle in
            var rows: [R] = []
            while try statement.step() { rows.append(try readRow(handle)) }
            return rows
        }
    }

    // MARK: - update(all:), delete(all:)

    /// Updates every row of `T`'s table that matches `constraints`' `where_` conditions.
    ///
    /// ```swift
    /// try storage.update(all: User.self, set(assign(\User.typeId, 4)), where_(\User.typeId == 3))
    /// ```
    /// - Throws: `ORMError.columnIsNotMapped` for a key path outside the table; `SQLiteError`.
    public func update<T>(all type: T.Type, _ set: SetClause, _ constraints: SelectConstraint...) throws {
        try update(all: type, set, constraints)
    }

    func update<T>(all type: T.Type, _ set: SetClause, _ constraints: [SelectConstraint]) throws {
        let table = try schema.table(for: T.self)
        guard !set.assignments.isEmpty else { return }
        var serializer = SQLSerializer(schema: schema)
        for (index, assignment) in set.assignments.enumerated() {
            guard let mapped = schema.columnsByKeyPath[assignment.keyPath], mapped.table === table else {
                throw ORMError.columnIsNotMapped(keyPath: "\(assignment.keyPath)")
            }
            if index > 0 { serializer.append(", ") }
            serializer.fragment.append(segment: .column(mapped.column.name, qualifier: nil))
            serializer.append(" = ")
            try serializer.append(assignment.value)
        }
        let assignments = serializer.fragment
        try runWriting(&serializer, constraints) { $0.update(.identifier(table.name), set: assignments) }
    }

    /// Deletes every row of `T`'s table that matches `constraints`' `where_` conditions (all rows
    /// without one).
    ///
    /// ```swift
    /// try storage.delete(all: User.self, where_(\User.id > 100))
    /// ```
    /// - Throws: `ORMError` for an unmapped type or key path; `SQLiteError`.
    public func delete<T>(all type: T.Type, _ constraints: SelectConstraint...) throws {
        try delete(all: type, constraints)
    }

    func delete<T>(all type: T.Type, _ constraints: [SelectConstraint]) throws {
        let table = try schema.table(for: T.self)
        var serializer = SQLSerializer(schema: schema)
        try runWriting(&serializer, constraints) { $0.delete(from: .identifier(table.name)) }
    }

    /// Renders the statement `head` makes with the `where_` conditions of `constraints` (writes
    /// take no order or limit) and runs it.
    private func runWriting(
        _ serializer: inout SQLSerializer, _ constraints: [SelectConstraint],
        head: (StatementClauses) -> SQLFragment
    ) throws {
        var clauses = QueryClauses(constraints)
        guard clauses.orderings.isEmpty, clauses.limit == nil else {
            throw ORMError.invalidQuery("update(all:) and delete(all:) take where_ conditions only")
        }
        clauses.fromTypes = []
        let statement = head(try clauses.statementClauses(&serializer))
        try withStatement(fragment: statement) { statement, _ in
            while try statement.step() {}
        }
    }
}
