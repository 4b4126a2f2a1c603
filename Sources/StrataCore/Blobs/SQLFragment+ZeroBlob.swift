// A zero blob interpolated into an SQL fragment (the query layer knows nothing of blobs).

import StrataKernel
import StrataSchema
extension SQLFragment.StringInterpolation {
    /// `\(ZeroBlob(count: n))`: SQLite's `zeroblob(?)` with `n` bound, so the zeros are never
    /// allocated (a fragment holds values, and a zero blob's value would be all its bytes).
    public mutating func appendInterpolation(_ value: ZeroBlob) {
        segments.append(.bound("zeroblob(?)", [.integer(Int64(value.count))]))
    }
}
