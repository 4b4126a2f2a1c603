import StrataKernel
import Foundation

/// Collects the versions of a ``Schema`` (the `schema` in `Schema { schema in ... }`).
public final class SchemaBuilder {
    var versions: [(number: Int, operations: [SchemaOperation])] = []

    init() {}

    /// Declares version `number` with the steps of `block`. Versions must be declared in
    /// increasing order, from 1 or more.
    public func version(_ number: Int, block: (SchemaVersionBuilder) -> Void) {
        let builder = SchemaVersionBuilder()
        block(builder)
        versions.append((number: number, operations: builder.operations))
    }
}
