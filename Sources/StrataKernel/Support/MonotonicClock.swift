import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Nanoseconds of a monotonic clock (the one `DispatchTime` reads), straight from the C library:
/// a statement's timing reads it twice, and `DispatchTime.now()` adds a hundred instructions of
/// conversions each time.
@inline(__always)
package func monotonicNanoseconds() -> UInt64 {
    #if canImport(Darwin)
    return clock_gettime_nsec_np(CLOCK_UPTIME_RAW)
    #else
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    #endif
}
