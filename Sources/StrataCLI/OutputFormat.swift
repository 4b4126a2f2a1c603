import ArgumentParser
import Foundation

/// How `strata query` prints rows.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, csv, json

    /// A writer for rows with these column names.
    func writer(columns: [String], output: @escaping (String) -> Void) -> any RowWriter {
        switch self {
        case .table: return TableWriter(columns: columns, output: output)
        case .csv: return CSVWriter(columns: columns, output: output)
        case .json: return JSONWriter(columns: columns, output: output)
        }
    }
}

/// Receives rows one at a time and writes them in one format through its `output` closure (raw
/// text, line ends included). Values arrive in SQift's `Any?` form (`Row.value(at:)`): `Int64`,
/// `Double`, `String`, `Data` or nil, one per storage class, so no column is read as a type its
/// storage class does not match.
protocol RowWriter {
    mutating func write(_ values: [Any?])
    mutating func finish()
}
