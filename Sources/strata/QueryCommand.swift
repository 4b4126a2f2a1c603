import ArgumentParser
import Foundation
import Strata

/// `strata query`: runs SQL against an existing database and prints the last statement's rows.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run SQL against a database file and print the rows.",
        discussion: """
            Several statements run in order; the rows of the last one are printed. --param values \
            are bound in order to the statements' parameters (?, ?NNN, :name, @name, $name): a \
            value that reads as an integer or a real is bound as one, 'null' binds NULL, anything \
            else is bound as text. When a statement fails, the ones before it stay done.
            """
    )

    @Argument(help: "Path to an existing database file.") var database: String
    @Argument(help: "The SQL to run.") var sql: String
    @Option(name: .customLong("param"), parsing: .unconditionalSingleValue, help: ArgumentHelp("A value to bind, in order (repeat for several).", valueName: "value")) var parameters: [String] = []
    @Option(help: "How to print the rows.") var format: OutputFormat = .table

    func run() throws {
        let statements = SQLScript.statements(in: sql)
        guard !statements.isEmpty else { throw CLIError("no SQL statement to run") }
        let connection = try DatabaseFile.openExisting(database)
        var values = parameters.map(Self.bindingValue)[...]
        for (index, text) in statements.enumerated() {
            let statement = try connection.prepare(text)
            let count = statement.parameterCount
            let isLast = index == statements.count - 1
            guard values.count >= count, !isLast || values.count == count else {
                throw CLIError("the SQL has \(Self.parameterCount(of: statements, on: connection)) parameters but \(parameters.count) --param values were given")
            }
            if count > 0 {
                try statement.bind(Array(values.prefix(count)))
                values = values.dropFirst(count)
            }
            if isLast {
                try printRows(of: statement)
            } else {
                try statement.run()
            }
        }
    }

    private func printRows(of statement: Statement) throws {
        let output = StandardOutput()
        // Rows printed before a failure (a damaged page mid-table) still reach the terminal.
        defer { output.flush() }
        var writer = format.writer(columns: statement.columnNames, output: output.write)
        let _: [Void] = try statement.query { row in
            writer.write((0..<row.columnCount).map { row.value(at: $0) })
        }
        writer.finish()
    }

    /// The value a `--param` binds: an integer, a finite real, NULL for `null`, else text.
    static func bindingValue(_ text: String) -> Bindable? {
        if text.lowercased() == "null" { return nil }
        if looksNumeric(text, allowingFraction: false), let integer = Int64(text) { return integer }
        if looksNumeric(text, allowingFraction: true), let real = Double(text), real.isFinite { return real }
        return text
    }

    /// Decimal digits with an optional sign (and, for reals, a fraction and exponent); Swift's
    /// `Double(_:)` alone would also take `nan`, `inf` and hexadecimal.
    private static func looksNumeric(_ text: String, allowingFraction: Bool) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        if scalars.first == "+" || scalars.first == "-" { scalars = scalars.dropFirst() }
        var digits = 0
        var seenPoint = false
        while let scalar = scalars.first {
            if ("0"..."9").contains(scalar) { digits += 1 }
            else if scalar == "." && allowingFraction && !seenPoint { seenPoint = true }
            else { break }
            scalars = scalars.dropFirst()
        }
        guard digits > 0 else { return false }
        if allowingFraction, scalars.first == "e" || scalars.first == "E" {
            scalars = scalars.dropFirst()
            if scalars.first == "+" || scalars.first == "-" { scalars = scalars.dropFirst() }
            guard !scalars.isEmpty, scalars.allSatisfy({ ("0"..."9").contains($0) }) else { return false }
            return true
        }
        return scalars.isEmpty
    }

    /// The parameters of all statements, for the message; statements that cannot be compiled yet
    /// (they need an earlier one to run first) count what is known.
    private static func parameterCount(of statements: [String], on connection: Connection) -> String {
        let counts = statements.map { try? connection.prepare($0).parameterCount }
        let known = counts.compactMap { $0 }.reduce(0, +)
        return counts.contains(where: { $0 == nil }) ? "at least \(known)" : "\(known)"
    }
}
