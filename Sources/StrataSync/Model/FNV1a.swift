// A small, stable hash for fingerprints, chains and digests.
import Foundation
import Strata

/// FNV-1a, 64 bits: the schema fingerprint and the hub's log chain (telling one history or schema
/// from another, not resisting an attacker).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        for byte in bytes { value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    }
    mutating func add(_ integer: Int64) { withUnsafeBytes(of: integer.littleEndian) { add($0) } }
}
