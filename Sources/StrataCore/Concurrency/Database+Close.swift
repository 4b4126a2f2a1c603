import StrataKernel
import StrataSchema
import Foundation

extension Database {
    /// Shuts the database down: refuses new work, waits for the calls already running, checkpoints
    /// the WAL and closes the reader connections; every later call throws ``SQLiteError/closed``.
    ///
    /// ```swift
    /// try await database.close()   // now copying app.sqlite alone copies all the data
    /// ```
    /// The checkpoint is TRUNCATE, so the WAL is empty and the database file holds every commit;
    /// while Litestream replicates the database it is PASSIVE (a truncation would reset the WAL
    /// under the replicator), which still copies every commit into the file but leaves the WAL
    /// for Litestream. The writer runs nothing after the checkpoint; its SQLite handle is released
    /// with the `Database` object. Cancelling the task that waits interrupts the calls still
    /// running (their statements roll back) and the shutdown goes on.
    ///
    /// Calling it again, or from several tasks, waits for the one shutdown and returns (or throws)
    /// as it did.
    /// Another process using the file never makes it fail: when the checkpoint cannot truncate
    /// (a reader in another process, another writer), it copies what it can, or nothing; every
    /// commit is already durable in the WAL, and the next checkpoint, in any process, copies the
    /// rest.
    /// - Throws: `SQLiteError` only when the checkpoint meets what puts the database at risk (an
    ///   I/O error, a full disk, corruption); the database is closed all the same.
    public func close() async throws {
        let shutdown = closing.withLock { task -> Task<Void, any Error> in
            if let task { return task }
            let made = Task { try await self.shutDown() }
            task = made
            return made
        }
        try await withTaskCancellationHandler {
            try await shutdown.value
        } onCancel: {
            closeInterruptsRunningWork.store(true)
        }
    }

    /// The steps of ``close()``, run once.
    private func shutDown() async throws {
        refuseNewWork(throwing: DatabaseError.closed)
        // A database made by SQift's initializers counts calls from now on only: the writer's
        // earlier calls finish before the checkpoint below (its queue is serial), and its
        // readers close as their calls return.
        await waitForRunningWork(interruptingWhen: { closeInterruptsRunningWork.load() })
        readerPool.close()
        // The snapshots' reads end here: their later reads throw `closed`, as every call does.
        for pin in snapshotPins.withLock({ pins in
            defer { pins.removeAll() }; return Array(pins.values)
        }) {
            DatabaseSnapshot.endPinningRead(on: pin)
        }
        _ = try await writerQueue.close { connection in try Database.shutdownCheckpoint(on: connection) }
    }

    /// Whether ``close()`` was called.
    public var isClosed: Bool { closing.withLock { $0 != nil } }
}
