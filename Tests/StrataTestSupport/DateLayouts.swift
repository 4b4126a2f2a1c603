// Dates written by SQLite itself, in every layout its date and time functions accept, for the
// differential tests of the records' and the ORM's lenient date reads.
import Foundation
import Strata

/// One stored date: the row it is in, how it was written and the instant SQLite reads from it.
public struct SQLiteDateSample: CustomStringConvertible, Sendable {
    public let id: Int64
    public let layout: String
    /// What the column holds, as SQLite prints it, and its storage class.
    public let stored: String
    public let storageClass: String
    /// Seconds from 1970: `(julianday(value) - 2440587.5) * 86400` for date text, the number
    /// itself (`CAST(value AS REAL)`) for INTEGER, REAL and number text.
    public let expected: Double

    public var description: String { "row \(id), \(layout): \(storageClass) '\(stored)', SQLite reads \(expected)" }
}

public enum SQLiteDateLayouts {
    /// Each layout: its name and the SQL expression that writes it from `$t`, Unix seconds (a
    /// REAL), and `$o`, an offset from UTC in seconds; `$s` is that offset's suffix text.
    static let layouts: [(name: String, sql: String)] = [
        ("date only", "strftime('%Y-%m-%d', $t, 'unixepoch')"),
        ("datetime()", "datetime($t, 'unixepoch')"),
        ("T, milliseconds, Z", "strftime('%Y-%m-%dT%H:%M:%fZ', $t, 'unixepoch')"),
        ("space, minutes", "strftime('%Y-%m-%d %H:%M', $t, 'unixepoch')"),
        ("space, milliseconds", "strftime('%Y-%m-%d %H:%M:%f', $t, 'unixepoch')"),
        ("Strata's written layout", "strftime('%Y-%m-%dT%H:%M:%f', $t, 'unixepoch')"),
        ("T, minutes, Z", "strftime('%Y-%m-%dT%H:%MZ', $t, 'unixepoch')"),
        ("seconds, space, lowercase z", "strftime('%Y-%m-%d %H:%M:%S', $t, 'unixepoch') || ' z'"),
        ("six fraction digits", "strftime('%Y-%m-%d %H:%M:%f', $t, 'unixepoch') || '417'"),
        ("offset, milliseconds", "strftime('%Y-%m-%dT%H:%M:%f', $t + $o, 'unixepoch') || $s"),
        ("offset, seconds", "datetime($t + $o, 'unixepoch') || $s"),
        ("offset, minutes", "strftime('%Y-%m-%d %H:%M', $t + $o, 'unixepoch') || $s"),
        ("integer", "CAST(floor($t) AS INTEGER)"),
        ("real", "$t"),
        ("number text", "CAST($t AS TEXT)"),
        ("integer text", "CAST(CAST(floor($t) AS INTEGER) AS TEXT)")
    ]

    /// 0000-01-03 and 9999-01-01 as Unix seconds: the years SQLite's functions write, in the
    /// proleptic Gregorian calendar Strata's own layout uses too (two days in, so that a layout's
    /// offset of up to 14 hours stays in year 0).
    static let earliest: Int64 = -62_167_046_400
    static let latest: Int64 = 253_370_764_800

    /// An instant as Unix milliseconds: whole seconds or not, mostly near now, sometimes
    /// anywhere SQLite's layouts reach, before 1970 included.
    public static func instant(_ random: inout SeededRandom) -> Int64 {
        let seconds: Int64
        switch random.int(0...5) {
        case 0: seconds = Int64(random.int(Int(earliest)...Int(latest)))
        case 1: seconds = Int64(random.int(Int(earliest)...0))
        case 2: seconds = random.pick([0, -1, 1, 86_399, 86_400, -86_400, 951_782_400, 4_107_542_399, earliest, latest])
        default: seconds = Int64(random.int(-2_208_988_800...4_102_444_800)) // 1900 to 2100
        }
        return seconds * 1000 + (random.oneIn(2) ? 0 : Int64(random.int(0...999)))
    }

    /// Writes `count` dates into `table`'s `at` column (a column with no declared type, so each
    /// keeps its storage class), each in a random layout, written by SQLite; returns what SQLite
    /// reads back from each. A composed offset is checked: SQLite must read the same instant.
    public static func insertSamples(_ random: inout SeededRandom, into db: Connection, table: String, count: Int) throws -> [SQLiteDateSample] {
        var samples: [SQLiteDateSample] = []
        for index in 0..<count {
            let id = Int64(index + 1)
            let milliseconds = instant(&random)
            let seconds = Double(milliseconds) / 1000
            let layout = random.pick(layouts)
            let offsetMinutes = random.int(-14 * 60...14 * 60)
            let offsetText =
                (random.oneIn(3) ? " " : "") + (offsetMinutes < 0 ? "-" : "+")
                + String(format: "%02d:%02d", abs(offsetMinutes) / 60, abs(offsetMinutes) % 60)
            let parameters: [String: Bindable?] = ["$t": seconds, "$o": Double(offsetMinutes * 60), "$s": offsetText]
            try db.run(
                "INSERT INTO \(table)(id, at) VALUES ($id, \(layout.sql))",
                parameters.filter { layout.sql.contains($0.key) }.merging(["$id": id]) { $1 })
            let sample: SQLiteDateSample? = try db.query(
                "SELECT CAST(at AS TEXT), typeof(at), (julianday(at) - 2440587.5) * 86400.0, CAST(at AS REAL) FROM \(table) WHERE id = ?", id
            ) { row -> SQLiteDateSample in
                let storageClass: String = row[1]
                let julian: Double? = row[2]
                let number: Double = row[3]
                let isNumber = storageClass != "text" || layout.name.hasSuffix("text")
                return SQLiteDateSample(
                    id: id, layout: layout.name, stored: row[0] ?? "", storageClass: storageClass,
                    expected: isNumber ? number : julian ?? .nan)
            }
            guard let sample else { throw PropertyViolation("row \(id) was not written") }
            try require(sample.expected.isFinite, "SQLite does not read its own \(sample)")
            if layout.name.hasPrefix("offset") || layout.name.hasSuffix("z") || layout.name.hasSuffix("Z") || layout.name.contains("digits") {
                // What SQLite writes and reads back is the instant, to the precision the layout keeps.
                let precision: Int64 = layout.name.contains("milli") || layout.name.contains("digits") ? 1 : layout.name.contains("minutes") ? 60_000 : 1000
                var truncated = milliseconds / precision * precision
                if truncated > milliseconds { truncated -= precision } // floor, before 1970 too
                try require(
                    abs(sample.expected - Double(truncated) / 1000) <= 0.001, "SQLite reads \(sample), not the instant \(truncated) ms it was written from")
            }
            samples.append(sample)
        }
        return samples
    }
}

/// A `DateFormatter` for `format` in the POSIX locale and UTC, as SQLite's dates are written.
public func utcPOSIXDateFormatter(_ format: String) -> DateFormatter {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(secondsFromGMT: 0)
    formatter.dateFormat = format
    return formatter
}
