// The parts of its view a replica asks for, kept in its own bookkeeping so they outlive the
// process, and sent with every push, pull and snapshot request.
import Foundation
import Strata

extension SyncReplica {
    static let subscriptionsKey = "subscriptions"

    /// The subscriptions kept in `connection`'s bookkeeping (empty: the whole view).
    static func subscriptions(_ connection: Connection) throws -> [SyncSubscription] {
        guard let text: String = try SyncStatus.state(subscriptionsKey, connection) else { return [] }
        do {
            return try JSONDecoder().decode([SyncSubscription].self, from: Data(text.utf8))
        } catch {
            throw SyncError.refused("the replica's subscriptions are damaged (\(error)); set them again with setSubscriptions(_:)")
        }
    }

    /// What a request carries: nil for none, so a hub from before subscriptions reads it as before.
    static func requestSubscriptions(_ connection: Connection) throws -> [SyncSubscription]? {
        let subscriptions = try subscriptions(connection)
        return subscriptions.isEmpty ? nil : subscriptions
    }

    /// The parts of its view this replica asks the hub for (empty: all of it). See
    /// ``SyncSubscription`` for what the hub serves.
    public var subscriptions: [SyncSubscription] {
        get async throws { try await database.read { try Self.subscriptions($0) } }
    }

    /// Replaces the replica's subscriptions; the next pull moves the rows they add or drop in or
    /// out, in one pull. Duplicates are kept once.
    public func setSubscriptions(_ subscriptions: [SyncSubscription]) async throws {
        try await updateSubscriptions { _ in subscriptions }
    }

    /// Adds a subscription (nothing when the replica has it already).
    public func subscribe(_ subscription: SyncSubscription) async throws {
        try await updateSubscriptions { $0 + [subscription] }
    }

    /// Drops a subscription; dropping the last one makes the replica hold its whole view again.
    public func unsubscribe(_ subscription: SyncSubscription) async throws {
        try await updateSubscriptions { $0.filter { $0 != subscription } }
    }

    /// Reads, changes and writes the subscriptions in one transaction, so that two changes at
    /// once both count.
    private func updateSubscriptions(_ change: @escaping @Sendable ([SyncSubscription]) -> [SyncSubscription]) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try await database.write { connection in
            var unique: [SyncSubscription] = []
            for subscription in change(try Self.subscriptions(connection)) where !unique.contains(subscription) { unique.append(subscription) }
            let bytes = try HTTPSyncTransport.subscriptionsQuery(unique).first?.value?.utf8.count ?? 0
            guard bytes <= SyncSubscription.maximumEncodedBytes else {
                throw SyncError.refused(
                    "\(unique.count) subscriptions take \(bytes) bytes in a request, past the \(SyncSubscription.maximumEncodedBytes) every transport carries; subscribe to fewer, broader instances (a bucket without parameters, or a parameter the rules group by)"
                )
            }
            let text = String(decoding: try encoder.encode(unique), as: UTF8.self)
            try SyncStatus.setState(Self.subscriptionsKey, unique.isEmpty ? .null : .text(text), connection)
            // A stream opened under the old subscriptions applies no more of its frames.
            let epoch: Int64 = (try SyncStatus.state(Self.viewEpochKey, connection)) ?? 0
            try SyncStatus.setState(Self.viewEpochKey, .integer(epoch &+ 1), connection)
        }
    }
}
