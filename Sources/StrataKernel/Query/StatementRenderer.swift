// The one renderer of every statement Strata writes: SELECT, INSERT (with its conflict clauses),
// UPDATE and DELETE. Records' typed queries and persistence, the ORM, Squeal's and SQLite.swiftly's
// helpers and the dump fill `StatementClauses` (or name an insert's columns) and render here, so a
// clause is written one way: WHERE, GROUP BY, HAVING, ORDER BY in that order, LIMIT and OFFSET
// always bound (one prepared statement serves every page). Persistence statements (insert,
// upsert, update, delete and fetch by key) are rendered once per type with a `?` per value and
// cached by identity, as GRDB's are.

/// The clauses that follow a statement's head, filled by each layer and rendered once.
///
/// A layer combines its own conditions into `predicate` (records parenthesize each operand, the
/// ORM joins its `where_` conditions with AND, Squeal's helpers pass their text as written); the
/// renderer only places the clauses.
package struct StatementClauses: Sendable {
    /// The WHERE condition, or nil.
    package var predicate: SQLFragment?
    /// The GROUP BY terms.
    package var groups: [SQLFragment] = []
    /// The HAVING condition, or nil.
    package var having: SQLFragment?
    /// The ORDER BY terms, each with its direction if any.
    package var orderings: [SQLFragment] = []
    /// At most this many rows.
    package var limit: Int?
    /// After skipping this many rows; nil writes nothing, 0 is bound like any other (a statement
    /// prepared once is paged by rebinding both values).
    package var offset: Int?
    /// The WITH clause's named queries, each `"name"("a", …) AS (SELECT …)` (see
    /// ``commonTable(_:columns:as:)``), written before the statement in order.
    package var commonTables: [SQLFragment] = []
    /// Whether the WITH clause is `WITH RECURSIVE` (a named query that reads itself).
    package var recursive = false

    package init(
        predicate: SQLFragment? = nil, groups: [SQLFragment] = [], having: SQLFragment? = nil,
        orderings: [SQLFragment] = [], limit: Int? = nil, offset: Int? = nil
    ) {
        self.predicate = predicate
        self.groups = groups
        self.having = having
        self.orderings = orderings
        self.limit = limit
        self.offset = offset
    }

    /// ` WHERE … GROUP BY … HAVING … ORDER BY … LIMIT ? OFFSET ?`, values bound; `ordering` and
    /// `limiting` leave out the last two (a count of the rows, a nested EXISTS).
    package func rendered(ordering: Bool = true, limiting: Bool = true) -> SQLFragment {
        var clauses = SQLFragment()
        if let predicate, !predicate.isEmpty { clauses.append(segment: .text(" WHERE ")); clauses.append(predicate) }
        if !groups.isEmpty { clauses.append(segment: .text(" GROUP BY ")); clauses.append(groups.joined(separator: ", ")) }
        if let having, !having.isEmpty { clauses.append(segment: .text(" HAVING ")); clauses.append(having) }
        if ordering, !orderings.isEmpty { clauses.append(segment: .text(" ORDER BY ")); clauses.append(orderings.joined(separator: ", ")) }
        if limiting {
            switch (limit, offset) {
            case (nil, nil): break
            case (let limit?, nil):
                clauses.append(segment: .text(" LIMIT ")); clauses.append(segment: .value(.integer(Int64(limit))))
            case (nil, let offset?):
                clauses.append(segment: .text(" LIMIT -1 OFFSET ")); clauses.append(segment: .value(.integer(Int64(offset))))
            case (let limit?, let offset?):
                clauses.append(segment: .text(" LIMIT ")); clauses.append(segment: .value(.integer(Int64(limit))))
                clauses.append(segment: .text(" OFFSET ")); clauses.append(segment: .value(.integer(Int64(offset))))
            }
        }
        return clauses
    }

    /// `WITH [RECURSIVE] a AS (…), b AS (…) `, or nothing without named queries.
    package var withClause: SQLFragment {
        guard !commonTables.isEmpty else { return SQLFragment() }
        return "\(sql: recursive ? "WITH RECURSIVE " : "WITH ")\(commonTables, separator: ", ") "
    }

    /// `[WITH …] SELECT [DISTINCT] columns FROM source clauses`.
    package func select(
        _ columns: SQLFragment, from source: SQLFragment, distinct: Bool = false,
        ordering: Bool = true, limiting: Bool = true
    ) -> SQLFragment {
        "\(withClause)SELECT \(sql: distinct ? "DISTINCT " : "")\(columns) FROM \(source)\(rendered(ordering: ordering, limiting: limiting))"
    }

    /// `[WITH …] UPDATE table SET assignments WHERE …`: the predicate only (SQLite takes ORDER BY
    /// and LIMIT on an UPDATE only when built with SQLITE_ENABLE_UPDATE_DELETE_LIMIT, and no GROUP BY).
    package func update(_ table: SQLFragment, set assignments: SQLFragment) -> SQLFragment {
        "\(withClause)UPDATE \(table) SET \(assignments)\(StatementClauses(predicate: predicate).rendered())"
    }

    /// `[WITH …] DELETE FROM table WHERE …`: the predicate only, as for `update(_:set:)`.
    package func delete(from table: SQLFragment) -> SQLFragment {
        "\(withClause)DELETE FROM \(table)\(StatementClauses(predicate: predicate).rendered())"
    }

    /// `"name"("a", "b") AS (select)`: one named query of a WITH clause; without `columns` the
    /// names are the select's own.
    package static func commonTable(_ name: String, columns: [String] = [], as select: SQLFragment) -> SQLFragment {
        var table = SQLFragment.identifier(name)
        if !columns.isEmpty { table.append("(\(columns.map(SQLFragment.identifier).joined(separator: ", ")))") }
        return "\(table) AS (\(select))"
    }

    /// `first UNION [ALL] second`: the two halves of a recursive named query.
    package static func union(_ first: SQLFragment, _ second: SQLFragment, all: Bool = false) -> SQLFragment {
        "\(first) \(sql: all ? "UNION ALL" : "UNION") \(second)"
    }
}

// MARK: - Schema statements over typed queries (views, triggers)

/// When a trigger fires, relative to its event.
package enum TriggerTiming: String, Sendable {
    case before = "BEFORE", after = "AFTER", insteadOf = "INSTEAD OF"
}

/// The event that fires a trigger.
package enum TriggerEvent: Sendable, Equatable {
    case insert, delete
    /// An UPDATE; of the named columns only when `columns` is not empty.
    case update(columns: [String])
}

extension StatementClauses {
    /// `CREATE [TEMP] VIEW [IF NOT EXISTS] "name"("a", …) AS select`. SQLite takes no parameters
    /// in a view: run it with ``SQLFragment/sqlInliningValues()``.
    package static func createView(
        _ name: String, columns: [String], as select: SQLFragment,
        temporary: Bool = false, ifNotExists: Bool = true
    ) -> SQLFragment {
        var sql = SQLFragment(sql: "CREATE \(temporary ? "TEMP " : "")VIEW \(ifNotExists ? "IF NOT EXISTS " : "")")
        sql.append(segment: .identifier(name))
        if !columns.isEmpty { sql.append("(\(columns.map(SQLFragment.identifier).joined(separator: ", ")))") }
        sql.append(" AS \(select)")
        return sql
    }

    /// `CREATE [TEMP] TRIGGER [IF NOT EXISTS] "name" timing event ON "table" FOR EACH ROW
    /// [WHEN condition] BEGIN statement; … END`. SQLite takes no parameters in a trigger: run it
    /// with ``SQLFragment/sqlInliningValues()``.
    package static func createTrigger(
        _ name: String, timing: TriggerTiming, event: TriggerEvent, on table: String,
        when condition: SQLFragment?, body: [SQLFragment],
        temporary: Bool = false, ifNotExists: Bool = false
    ) -> SQLFragment {
        var sql = SQLFragment(sql: "CREATE \(temporary ? "TEMP " : "")TRIGGER \(ifNotExists ? "IF NOT EXISTS " : "")")
        sql.append(segment: .identifier(name))
        sql.append(segment: .text(" \(timing.rawValue) "))
        switch event {
        case .insert: sql.append(segment: .text("INSERT"))
        case .delete: sql.append(segment: .text("DELETE"))
        case .update(let columns):
            sql.append(segment: .text("UPDATE"))
            if !columns.isEmpty { sql.append(" OF \(columns.map(SQLFragment.identifier).joined(separator: ", "))") }
        }
        sql.append(" ON \(identifier: table) FOR EACH ROW")
        if let condition, !condition.isEmpty { sql.append(" WHEN \(condition)") }
        sql.append(segment: .text(" BEGIN "))
        for statement in body { sql.append("\(statement); ") }
        sql.append(segment: .text("END"))
        return sql
    }
}

/// What an INSERT does when its row collides with a stored one (same key or unique value).
package enum InsertConflictAction: Sendable, Equatable {
    /// A plain `INSERT`: the collision fails the statement (SQLite's ABORT).
    case abort
    /// `REPLACE INTO`: the stored row is deleted and the new one inserted.
    case replace
    /// `INSERT OR IGNORE`: the new row is dropped, whatever constraint it breaks.
    case ignore
    /// `ON CONFLICT (target) DO NOTHING`: only a collision on `target` drops the row.
    case doNothing(conflictTarget: [String])
    /// `ON CONFLICT (target) DO UPDATE SET` every inserted column outside `target` to the value
    /// offered (`excluded."column"`); with nothing outside the target, `DO NOTHING`.
    case updateAll(conflictTarget: [String])
    /// `ON CONFLICT (target) DO UPDATE SET` only `columns` to the values offered.
    case update(columns: [String], conflictTarget: [String])
}

extension StatementClauses {
    /// `INSERT INTO "table" ("a", "b") VALUES (?, ?)`, a `?` per column for a statement prepared
    /// once and bound per row, or `DEFAULT VALUES` without columns; then the conflict clause.
    package static func insert(into table: String, columns: [String], onConflict: InsertConflictAction = .abort) -> SQLFragment {
        var sql = SQLFragment(
            sql: {
                switch onConflict {
                case .replace: return "REPLACE INTO "
                case .ignore: return "INSERT OR IGNORE INTO "
                case .abort, .doNothing, .updateAll, .update: return "INSERT INTO "
                }
            }())
        sql.append(segment: .identifier(table))
        if columns.isEmpty {
            sql.append(segment: .text(" DEFAULT VALUES"))
        } else {
            sql.append(segment: .text(" ("))
            sql.append(columns.map(SQLFragment.identifier).joined(separator: ", "))
            sql.append(segment: .text(") VALUES (" + parameterMarkers(columns.count) + ")"))
        }
        func target(_ names: [String]) -> SQLFragment {
            // No target: any uniqueness conflict (SQLite accepts that for DO NOTHING only).
            names.isEmpty ? " ON CONFLICT" : " ON CONFLICT (\(names.map(SQLFragment.identifier).joined(separator: ", ")))"
        }
        func doUpdate(_ names: [String]) -> SQLFragment {
            guard !names.isEmpty else { return " DO NOTHING" }
            return " DO UPDATE SET " + names.map { "\(identifier: $0) = excluded.\(identifier: $0)" as SQLFragment }.joined(separator: ", ")
        }
        switch onConflict {
        case .abort, .replace, .ignore: break
        case .doNothing(let conflictTarget):
            sql.append(target(conflictTarget)); sql.append(segment: .text(" DO NOTHING"))
        case .updateAll(let conflictTarget):
            let keys = IdentifierSet(conflictTarget)
            sql.append(target(conflictTarget)); sql.append(doUpdate(columns.filter { !keys.contains($0) }))
        case .update(let updated, let conflictTarget):
            sql.append(target(conflictTarget)); sql.append(doUpdate(updated))
        }
        return sql
    }

    /// `"a" = ? AND "b" = ?`: a row found by its key, the key's values bound per call. No key
    /// matches no row (`false`), never every row.
    static func keyMatch(_ keyColumns: [String]) -> SQLFragment {
        guard !keyColumns.isEmpty else { return "false" }
        return keyColumns.map { "\(identifier: $0) = ?" as SQLFragment }.joined(separator: " AND ")
    }

    /// `"a" = ?, "b" = ?`: an UPDATE's SET list, its values bound per call.
    package static func assignments(_ columns: [String]) -> SQLFragment {
        columns.map { "\(identifier: $0) = ?" as SQLFragment }.joined(separator: ", ")
    }

    /// `?, ?, ?`: `count` parameters.
    package static func parameterMarkers(_ count: Int) -> String {
        count <= 0 ? "" : "?" + String(repeating: ", ?", count: count - 1)
    }

    /// The statements that read, change and remove one row of `table` by `keyColumns`, each
    /// rendered once with a `?` per value.
    package static func byKey(_ table: String, keyColumns: [String]) -> ByKey { ByKey(table: table, keyColumns: keyColumns) }

    /// Statements on one row found by its key (see ``byKey(_:keyColumns:)``).
    package struct ByKey: Sendable {
        package let table: String
        package let keyColumns: [String]
        private var clauses: StatementClauses { StatementClauses(predicate: StatementClauses.keyMatch(keyColumns)) }

        /// `SELECT columns FROM "table" WHERE "key" = ?`.
        package func select(_ columns: [String]) -> SQL {
            clauses.select(columns.map(SQLFragment.identifier).joined(separator: ", "), from: .identifier(table)).sql
        }
        /// `UPDATE "table" SET "a" = ?, … WHERE "key" = ?`: the values first, then the key's.
        package func update(_ columns: [String]) -> SQL {
            clauses.update(.identifier(table), set: StatementClauses.assignments(columns)).sql
        }
        /// `DELETE FROM "table" WHERE "key" = ?`.
        package func delete() -> SQL { clauses.delete(from: .identifier(table)).sql }
    }
}

extension SQLFragment {
    /// SQL text written by the caller (a Squeal helper's `whereExpr`, say), spliced as written;
    /// nil when empty, so a clause is left out.
    package static func written(_ text: String?) -> SQLFragment? {
        guard let text, !text.isEmpty else { return nil }
        return SQLFragment(sql: text)
    }
}

extension SQLFragment {
    /// The SQL text and, after `parameters` (the values of `?`s the caller wrote in its own
    /// text, which all come before the renderer's bound values), the values to bind: how
    /// Squeal's helpers, which take positional parameters beside SQL text, run a rendered statement.
    package func positional(after parameters: [Bindable?]) -> (sql: SQL, parameters: [Bindable?]) {
        let values = arguments
        guard !values.isEmpty else { return (sql, parameters) }
        return (
            sql,
            parameters
                + values.map { value -> Bindable? in
                    switch value {
                    case .null: return nil
                    case .integer(let integer): return integer
                    case .real(let real): return real
                    case .text(let text): return text
                    case .blob(let data): return data
                    }
                }
        )
    }
}

/// The renderer's alias scope: the tables named by the statements whose closures are running, so
/// that a statement built inside one (a subquery, a join inside a subquery) gives a table the
/// enclosing statement already names a distinct alias, and qualifies its columns through it.
@usableFromInline
package enum QueryScope {
    @TaskLocal package static var qualifiers: [String] = []

    /// `table`, or `table_2`, `table_3`… when an enclosing statement (or `taken`) already names
    /// `table` as SQLite compares names.
    @usableFromInline
    package static func freeQualifier(for table: String, taken: [String] = []) -> String {
        var used = IdentifierSet(qualifiers)
        used.formUnion(taken)
        guard used.contains(table) else { return table }
        var number = 2
        while used.contains("\(table)_\(number)") { number += 1 }
        return "\(table)_\(number)"
    }

    /// Runs `body` with `added` in scope.
    @usableFromInline
    package static func within<T>(_ added: [String], _ body: () throws -> T) rethrows -> T {
        try $qualifiers.withValue(qualifiers + added, operation: body)
    }
}
