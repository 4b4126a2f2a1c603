/// Small text helpers for the commands' output.
extension String {
    /// The string without leading and trailing whitespace and newlines.
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }

    /// The string without trailing spaces (table rows end at their last visible character).
    func trailingSpacesRemoved() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
