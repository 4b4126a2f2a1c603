// The module's composition: which folder fills an extension point that a folder below it
// declares. Dependencies point one way everywhere else (.ci/layering.py checks it):
// Concurrency declares what it asks (as types it owns), and only this file names what answers
// it from the folders above. Each list or maker is a constant, fixed before any connection
// opens, so nothing here changes at run time.

import StrataKernel
import StrataSchema
extension Database {
    /// What opening a database asks about its path (see ``WriteRefusalRule``).
    static let writeRefusalRules: [WriteRefusalRule] = [{ LitestreamVFS.writeRefusal(path: $0, flags: $1) }]
}

extension ConnectionQueue {
    /// What each queue keeps for the layers above (see ``companion``): observation's center,
    /// tracking the connection's commits from the start.
    static let makeCompanion: @Sendable (Connection) -> any AnyObject & Sendable = { connection in
        let center = ObservationCenter()
        center.trackCommits(of: connection)
        return center
    }
}
