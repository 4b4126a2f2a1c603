import Foundation
import Testing

/// Waits until `condition` holds, looking every `every`, for at most `within`; returns whether it
/// held. The condition is checked once more after the bound has passed, so a waiter that was not
/// scheduled while its deadline passed (Swift Testing runs a thousand tests on one cooperative
/// thread a core) still sees a late result, and only a condition that never holds fails.
public func eventually(
    within bound: Duration = .seconds(60),
    every interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + bound
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: interval)
    }
    return try await condition()
}

/// Waits as ``eventually(within:every:_:)`` does and records an issue naming `what` if the
/// condition never held.
public func expectEventually(
    _ what: String,
    within bound: Duration = .seconds(60),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    if try await !eventually(within: bound, condition) {
        Issue.record("not within \(bound): \(what)", sourceLocation: sourceLocation)
    }
}
