extension String {
    /// The string as an SQL identifier: in double quotes, inner quotes doubled (the kernel's quoting).
    var quotedIdentifier: String { quoteIdentifier(self) }
}
