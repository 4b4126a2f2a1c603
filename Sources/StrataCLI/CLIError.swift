/// A problem the tool found before or around SQLite's work, with a message that names it.
struct CLIError: Error, CustomStringConvertible {
    let message: String

    init(_ message: String) { self.message = message }

    var description: String { message }
}
