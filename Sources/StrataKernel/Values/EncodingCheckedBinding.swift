// Values that can fail to encode (JSON of a non-finite Double, a Codable value's encoder): they
// bind NULL, and the query builders above ask here why, to throw instead of writing that NULL.

/// A binding whose ``Bindable/bindingValue`` is NULL when its value cannot be encoded, and which
/// can say why: builders turn that NULL into an error instead of writing or comparing it.
package protocol EncodingCheckedBinding {
    /// The error encoding the value throws, or nil when it encodes.
    var encodingError: (any Error)? { get }
}

/// Why `value` binds NULL when it is a binding whose encoding failed; nil otherwise.
package func bindingEncodingError(of value: Any) -> (any Error)? {
    switch value {
    case let checked as any EncodingCheckedBinding: return checked.encodingError
    case let codable as any CodableBinding:
        do { _ = try CodableBindingCoder.encode(codable) } catch { return error }
        return nil
    default: return nil
    }
}
