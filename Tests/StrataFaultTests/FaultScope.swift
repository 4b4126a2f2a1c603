// The Swift face of the "strata-faults" VFS for the sweeps: a scope per test directory, faults
// armed on a method and file kind, and the counts of what was called and injected.

import Foundation
import Strata
import StrataFaultVFS
import Testing
#if canImport(SQLite3)
import SQLite3
#endif

/// Which file a fault is armed on, from the flags SQLite opened it with.
enum FileKind: Int32, Sendable, CustomStringConvertible {
    case mainDatabase = 0, journal = 1, wal = 2, other = 3, any = -1

    var description: String {
        switch self {
        case .mainDatabase: return "db"
        case .journal: return "journal"
        case .wal: return "wal"
        case .other: return "other"
        case .any: return "any"
        }
    }
}

/// The VFS methods a fault can fail.
enum FaultMethod: Int32, Sendable {
    case write = 0, sync, read, truncate, fileSize, lock, shmMap, open
}

/// One kind of failure, armed at the Nth call by a sweep.
struct Fault: Sendable, CustomStringConvertible {
    var method: FaultMethod
    var kind: FileKind
    /// 0: the method's usual I/O error (`SQLITE_IOERR_WRITE` for a write, ...).
    var code: Int32 = 0
    /// Fails every later matching call too, until cleared (a disk that stays full).
    var persistent = true
    /// A write that puts half its bytes on disk before failing.
    var shortWrite = false

    var description: String {
        let what: String
        switch (method, code, shortWrite) {
        case (.write, SQLITE_FULL, true): what = "short write"
        case (.write, SQLITE_FULL, false): what = "full"
        default: what = "\(method)"
        }
        return "\(what)@\(kind)\(persistent ? "" : "/once")"
    }

    static func write(_ kind: FileKind, persistent: Bool = true) -> Fault { Fault(method: .write, kind: kind, persistent: persistent) }
    static func full(_ kind: FileKind) -> Fault { Fault(method: .write, kind: kind, code: SQLITE_FULL) }
    static func shortWrite(_ kind: FileKind) -> Fault { Fault(method: .write, kind: kind, code: SQLITE_FULL, shortWrite: true) }
    static func sync(_ kind: FileKind) -> Fault { Fault(method: .sync, kind: kind) }
    static func read(_ kind: FileKind) -> Fault { Fault(method: .read, kind: kind) }
    static func truncate(_ kind: FileKind) -> Fault { Fault(method: .truncate, kind: kind) }
    static func fileSize(_ kind: FileKind) -> Fault { Fault(method: .fileSize, kind: kind) }
    static func lock(_ kind: FileKind) -> Fault { Fault(method: .lock, kind: kind) }
    static let shmMap = Fault(method: .shmMap, kind: .mainDatabase)
    static func open(_ kind: FileKind) -> Fault { Fault(method: .open, kind: kind) }

    /// The faults every sweep of a rollback-journal database runs.
    static let journalModeFaults: [Fault] = [
        .write(.mainDatabase), .write(.journal), .write(.mainDatabase, persistent: false), .write(.journal, persistent: false),
        .full(.mainDatabase), .full(.journal), .shortWrite(.journal), .shortWrite(.mainDatabase),
        .sync(.mainDatabase), .sync(.journal), .read(.mainDatabase), .read(.journal), .truncate(.any),
        .fileSize(.any), .lock(.mainDatabase), .open(.journal)
    ]

    /// The faults every sweep of a WAL database runs.
    static let walModeFaults: [Fault] = [
        .write(.mainDatabase), .write(.wal), .write(.wal, persistent: false), .full(.wal), .full(.mainDatabase),
        .shortWrite(.wal), .sync(.wal), .sync(.mainDatabase), .read(.mainDatabase), .read(.wal), .truncate(.any),
        .fileSize(.any), .lock(.mainDatabase), .shmMap
    ]
}

/// Makes "strata-faults" the process's default VFS, once (with STRATA_FAULT_TESTS=1 the library's
/// constructor already did, before any file opened: PROJ, under mod_spatialite, breaks at exit if
/// the default VFS changes while proj.db is open). Files outside every scope are forwarded to the
/// unix VFS untouched, so the other suites running in this process notice nothing.
let faultVFSRegistered: Bool = strata_fault_vfs_register(1) == SQLITE_OK

/// A temporary directory whose files' calls are counted and can be failed.
final class FaultScope: @unchecked Sendable { // the id never changes; the C side locks its state
    let id: Int32
    let directory: URL

    init() throws {
        guard faultVFSRegistered else { throw FaultTestError("the strata-faults VFS did not register") }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-faults-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        id = strata_fault_scope_create(directory.path + "/")
        guard id >= 0 else { throw FaultTestError("no free fault scope") }
    }

    deinit {
        strata_fault_scope_destroy(id)
        try? FileManager.default.removeItem(at: directory)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Arms `fault` at the `nth` matching call from now (counters restart).
    func arm(_ fault: Fault, at nth: Int) {
        strata_fault_arm(
            id, fault.kind.rawValue, fault.method.rawValue, Int32(clamping: nth), fault.code,
            fault.persistent ? 1 : 0, fault.shortWrite ? 1 : 0)
    }

    func clear() { strata_fault_clear(id) }

    /// Faults injected since the last arm.
    var injected: Int { Int(strata_fault_injected(id)) }

    /// Calls of `method` on `kind` since the last arm.
    func count(_ method: FaultMethod, _ kind: FileKind = .any) -> Int { Int(strata_fault_count(id, kind.rawValue, method.rawValue)) }
}

struct FaultTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Every fault suite, one test at a time: a sweep blocks its thread for seconds, and two at once
/// would hold both of a small machine's cooperative threads, starving the package's async tests.
/// Runs when `STRATA_FAULT_TESTS=1` (`.ci/run` runs them beside the mod_spatialite suite, the mix
/// that crashed at exit while this VFS became the default only when the first sweep ran; see
/// `FaultVFS.c`).
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["STRATA_FAULT_TESTS"] == "1"))
struct FaultSweeps {}
