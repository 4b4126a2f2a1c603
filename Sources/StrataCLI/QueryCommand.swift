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

    @Argument(help: "Path to an existing database file (or a new one, with --create).") var database: String
    @Argument(help: "The SQL to run.") var sql: String
    @Option(
        name: .customLong("param"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp("A value to bind, in order (repeat for several).", valueName: "value")) var parameters: [String] = []
    @Option(help: "How to print the rows.") var format: OutputFormat = .table
    @Flag(help: "Create the database file if it does not exist.") var create = false

    func run() throws {
        let connection = try create ? DatabaseFile.openOrCreate(database) : DatabaseFile.openExisting(database)
        // The kernel's cursor compiles each statement after the previous one ran, so a later
        // statement may use what an earlier one created.
        let cursor = connection.statements(in: sql)
        var values = parameters.map(Self.bindingValue)[...]
        var ranAny = false
        var earlierParameterCount = 0
        while let statement = try cursor.next() {
            ranAny = true
            let count = statement.parameterCount
            let isLast = cursor.isAtLastStatement
            guard values.count >= count, !isLast || values.count == count else {
                let total = Self.parameterCount(seen: earlierParameterCount + count, after: cursor.remainingSQL, on: connection)
                throw CLIError("the SQL has \(total) parameters but \(parameters.count) --param values were given")
            }
            earlierParameterCount += count
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
        guard ranAny else { throw CLIError("no SQL statement to run") }
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
            if ("0"..."9").contains(scalar) { digits += 1 } else if scalar == "." && allowingFraction && !seenPoint { seenPoint = true } else { break }
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

    /// The parameters of the whole script, for the message: those seen so far plus those of the
    /// statements after them that compile without the earlier ones having run ("at least" when
    /// some do not).
    private static func parameterCount(seen: Int, after rest: Substring, on connection: Connection) -> String {
        let cursor = connection.statements(in: String(rest))
        var known = seen
        while true {
            do {
                guard let statement = try cursor.next() else { return "\(known)" }
                known += statement.parameterCount
            } catch {
                return "at least \(known)"
            }
        }
    }
}
