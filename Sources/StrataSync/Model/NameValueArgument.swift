// `NAME=VALUE` command-line arguments, shared by `strata sync` and `strata-sync-hub token`.
import Foundation

/// Splits `NAME=VALUE` at its first `=` scalar (a `=` before a combining mark is one Character,
/// and still the separator); nil when there is none or the name is empty.
package func splitNameValueArgument(_ text: String) -> (name: String, value: String)? {
    let scalars = text.unicodeScalars
    guard let equals = scalars.firstIndex(of: "="), equals != scalars.startIndex else { return nil }
    return (String(scalars[..<equals]), String(scalars[scalars.index(after: equals)...]))
}
