import Foundation
import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif
import StrataSQLiteSession

/// Why SQLite could not apply a change as recorded. See <https://www.sqlite.org/session/c_changeset_conflict.html>.
public enum ConflictKind: Sendable, Equatable {
    /// The row to update or delete exists, but its values are not the changeset's old values.
    case data
    /// The row to update or delete does not exist.
    case notFound
    /// The row to insert already exists (same primary key).
    case conflict
    /// The change violates a constraint (UNIQUE, CHECK, NOT NULL).
    case constraint
    /// Applying the changeset left foreign key violations (reported once, at the end).
    case foreignKey

    init?(code: Int32) {
        switch code {
        case SQLITE_CHANGESET_DATA: self = .data
        case SQLITE_CHANGESET_NOTFOUND: self = .notFound
        case SQLITE_CHANGESET_CONFLICT: self = .conflict
        case SQLITE_CHANGESET_CONSTRAINT: self = .constraint
        case SQLITE_CHANGESET_FOREIGN_KEY: self = .foreignKey
        default: return nil
        }
    }
}

/// What to do about a conflict.
public enum ConflictResolution: Sendable, Equatable {
    /// Skip the change.
    case omit
    /// Write the change anyway, over the row that conflicts (for `.data` and `.conflict` only;
    /// for other kinds SQLite treats it as misuse and the apply fails).
    case replace
    /// Stop and undo everything applied so far; the apply throws.
    case abort

    var code: Int32 {
        switch self {
        case .omit: return SQLITE_CHANGESET_OMIT
        case .replace: return SQLITE_CHANGESET_REPLACE
        case .abort: return SQLITE_CHANGESET_ABORT
        }
    }
}

/// One conflict met while applying a changeset.
public struct Conflict: Sendable {
    /// Why the change could not be applied as recorded.
    public let kind: ConflictKind
    /// The change (for `.foreignKey`, an empty change naming no table).
    public let change: Change
    /// The row as it is in the target, for `.data` and `.conflict`; nil otherwise.
    public let currentValues: [BindingValue?]?
    /// For `.foreignKey`: how many foreign key violations the changeset would leave.
    public let foreignKeyViolations: Int
}

/// Options of `Connection.apply(_:filter:options:onConflict:)` (SQLite's `apply_v2` flags).
public struct ApplyOptions: OptionSet, Sendable {
    /// The option bits.
    public let rawValue: Int32
    /// Creates options from their bits.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Do not wrap the apply in a savepoint (the caller's transaction is the only undo).
    public static let noSavepoint = ApplyOptions(rawValue: SQLITE_CHANGESETAPPLY_NOSAVEPOINT)
    /// Apply the changeset inverted (undo it) without building the inverse first.
    public static let invert = ApplyOptions(rawValue: SQLITE_CHANGESETAPPLY_INVERT)
    /// Skip updates whose row already holds the new values instead of reporting a `.data`
    /// conflict (SQLite 3.45's `IGNORENOOP`; on older SQLite Strata does the same in its handler).
    public static let ignoreNoOpUpdates = ApplyOptions(rawValue: 0x0004)
}

/// What an apply leaves for rebasing: give it to a ``Rebaser`` to rebase changesets made on a
/// replica that had not seen this one. See <https://www.sqlite.org/session/rebaser.html>.
public struct ChangesetRebase: Sendable, Equatable {
    /// SQLite's rebase buffer.
    public let data: Data
    /// Wraps a rebase buffer (as stored or received).
    public init(data: Data) { self.data = data }
}

/// The state shared with SQLite's C callbacks during one apply.
private final class ApplyContext {
    let filter: ((String) -> Bool)?
    let onConflict: (Conflict) throws -> ConflictResolution
    let emulateIgnoreNoOp: Bool
    var failure: Error?

    init(filter: ((String) -> Bool)?, onConflict: @escaping (Conflict) throws -> ConflictResolution, emulateIgnoreNoOp: Bool) {
        self.filter = filter
        self.onConflict = onConflict
        self.emulateIgnoreNoOp = emulateIgnoreNoOp
    }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> ApplyContext? {
        pointer.map { Unmanaged<ApplyContext>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The handler's answer as SQLite's code; an error thrown by it aborts the apply.
    func resolve(_ code: Int32, _ iterator: OpaquePointer?) -> Int32 {
        guard failure == nil, let iterator, let kind = ConflictKind(code: code) else { return SQLITE_CHANGESET_ABORT }
        do {
            let conflict: Conflict
            if kind == .foreignKey {
                var violations: Int32 = 0
                _ = sqlite3changeset_fk_conflicts(iterator, &violations)
                conflict = Conflict(
                    kind: kind,
                    change: Change(
                        table: "", operation: .update, oldValues: [], newValues: [],
                        primaryKeyColumns: [], isIndirect: false),
                    currentValues: nil, foreignKeyViolations: Int(violations))
            } else {
                let change = try Change(iterator: iterator)
                var current: [BindingValue?]?
                if kind == .data || kind == .conflict {
                    current = (0..<change.primaryKeyColumns.count).map { column in
                        var value: OpaquePointer?
                        return sqlite3changeset_conflict(iterator, Int32(column), &value) == SQLITE_OK ? value.map(BindingValue.init(reading:)) : nil
                    }
                }
                if emulateIgnoreNoOp, kind == .data, change.operation == .update, let current,
                    zip(change.newValues, current).allSatisfy({ new, now in new == nil || new == now })
                {
                    return SQLITE_CHANGESET_OMIT
                }
                conflict = Conflict(kind: kind, change: change, currentValues: current, foreignKeyViolations: 0)
            }
            return try onConflict(conflict).code
        } catch {
            failure = error
            return SQLITE_CHANGESET_ABORT
        }
    }
}

private let applyFilter: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32 = { context, table in
    guard let context = ApplyContext.from(context), let filter = context.filter, let table else { return 1 }
    return filter(String(cString: table)) ? 1 : 0
}

private let applyConflict: @convention(c) (UnsafeMutableRawPointer?, Int32, OpaquePointer?) -> Int32 = { context, code, iterator in
    ApplyContext.from(context)?.resolve(code, iterator) ?? SQLITE_CHANGESET_ABORT
}

extension Connection {
    /// Applies a changeset to the main database, in one savepoint: an abort, a failure, or an
    /// error thrown by `onConflict` leaves the database exactly as it was. Each table's INSERTs
    /// are applied after its other changes, so a key renamed under a collation or a UNIQUE value
    /// moved to a new row applies without a clash (``apply(contentsOf:filter:options:onConflict:)``
    /// streams the file and applies in the order it holds).
    ///
    /// ```swift
    /// try replica.apply(changeset) { conflict in
    ///     conflict.kind == .data ? .replace : .omit
    /// }
    /// ```
    /// - Parameters:
    ///   - changeset: The changes to apply.
    ///   - filter: Which tables to apply changes to (all when nil).
    ///   - options: SQLite's apply flags.
    ///   - onConflict: What to do about each conflict; see ``ConflictKind``.
    /// - Returns: What a ``Rebaser`` needs to rebase changesets made without this one.
    /// - Throws: `SQLiteError` (`SQLITE_ABORT` after `.abort`, `SQLITE_CORRUPT` for damaged
    ///   bytes, checked before anything is written), the handler's error, or ``ChangesetError``.
    @discardableResult
    public func apply(
        _ changeset: Changeset, filter: ((String) -> Bool)? = nil, options: ApplyOptions = [],
        onConflict: (Conflict) throws -> ConflictResolution
    ) throws -> ChangesetRebase {
        try SessionExtension.require()
        // The format is checked first, so damaged bytes fail before anything is written.
        try ChangesetFormat.validate(changeset.data)
        return try changeset.insertsLast(inverting: options.contains(.invert)).withBytes(validating: false) { count, bytes in
            try withApplyContext(filter: filter, options: options, onConflict: onConflict) { context, flags, rebase, rebaseCount in
                sqlite3changeset_apply_v2(handle, count, bytes, applyFilter, applyConflict, context, rebase, rebaseCount, flags)
            }
        }
    }

    /// Applies a changeset stored in a file, reading it in pieces (for changesets larger than memory).
    ///
    /// - Throws: as ``apply(_:filter:options:onConflict:)``, or the file's error.
    @discardableResult
    public func apply(
        contentsOf url: URL, filter: ((String) -> Bool)? = nil, options: ApplyOptions = [],
        onConflict: (Conflict) throws -> ConflictResolution
    ) throws -> ChangesetRebase {
        try SessionExtension.require()
        try ChangesetFile.validate(url)
        return try ChangesetFile.read(url) { input, inputContext in
            try withApplyContext(filter: filter, options: options, onConflict: onConflict) { context, flags, rebase, rebaseCount in
                sqlite3changeset_apply_v2_strm(handle, input, inputContext, applyFilter, applyConflict, context, rebase, rebaseCount, flags)
            }
        }
    }

    /// Runs one `apply_v2` call (`body`, given the context, the flags and where to put the rebase
    /// buffer) with the handler and options in place, and returns the rebase data.
    private func withApplyContext(
        filter: ((String) -> Bool)?, options: ApplyOptions,
        onConflict: (Conflict) throws -> ConflictResolution,
        _ apply: (UnsafeMutableRawPointer, Int32, UnsafeMutablePointer<UnsafeMutableRawPointer?>, UnsafeMutablePointer<Int32>) -> Int32
    ) throws -> ChangesetRebase {
        let nativeIgnoreNoOp = sqlite3_libversion_number() >= 3_045_000
        var flags = options.rawValue
        if !nativeIgnoreNoOp { flags &= ~ApplyOptions.ignoreNoOpUpdates.rawValue }
        return try withoutActuallyEscaping(onConflict) { onConflict in
            let context = ApplyContext(
                filter: filter, onConflict: onConflict,
                emulateIgnoreNoOp: !nativeIgnoreNoOp && options.contains(.ignoreNoOpUpdates))
            let pointer = Unmanaged.passUnretained(context).toOpaque()
            let wasInTransaction = isInTransaction
            return try withExtendedLifetime(context) {
                do {
                    var rebase: UnsafeMutableRawPointer?
                    var rebaseCount: Int32 = 0
                    let code = apply(pointer, flags, &rebase, &rebaseCount)
                    defer { sqlite3_free(rebase) }
                    // SQLite's own statements did the writing, out of Strata's sight: observers
                    // of this connection must look again.
                    noteWrites(.everything)
                    try check(code)
                    return ChangesetRebase(data: rebase.map { Data(bytes: $0, count: Int(rebaseCount)) } ?? Data())
                } catch {
                    // SQLite undoes a failed apply with its own savepoint, but when an I/O error
                    // or a full disk also fails that rollback, the savepoint's transaction stays
                    // open: end it, so the database is as it was and the next BEGIN works.
                    if !wasInTransaction && isInTransaction { try? rollbackTransaction() }
                    // The handler's own error explains the abort better than SQLITE_ABORT.
                    throw context.failure ?? error
                }
            }
        }
    }
}

/// Rebases changesets made on a replica that had not yet seen changesets applied here, so that
/// applying them elsewhere has the effect of the conflict resolutions chosen here.
///
/// ```swift
/// let rebase = try local.apply(remoteChanges) { _ in .replace }
/// let rebaser = try Rebaser(rebase)
/// let outgoing = try rebaser.rebase(localChanges)
/// ```
public final class Rebaser {
    private var handle: OpaquePointer?

    /// A rebaser configured with what one or more applies left.
    ///
    /// - Throws: ``ChangesetError/sessionExtensionUnavailable``; `SQLiteError` for damaged data.
    public init(_ rebases: ChangesetRebase...) throws {
        try SessionExtension.require()
        var rebaser: OpaquePointer?
        try checkSession(sqlite3rebaser_create(&rebaser), "rebaser")
        handle = rebaser
        for rebase in rebases {
            try Changeset(data: rebase.data).withBytes(validating: false) { count, bytes in
                try checkSession(sqlite3rebaser_configure(rebaser, count, bytes), "rebaser")
            }
        }
    }

    deinit { sqlite3rebaser_delete(handle) }

    /// `changeset` rewritten as if it had been made after the applies this rebaser knows.
    ///
    /// - Throws: `SQLiteError` for a damaged changeset.
    public func rebase(_ changeset: Changeset) throws -> Changeset {
        try changeset.withBytes { count, bytes in
            try Changeset.output { sqlite3rebaser_rebase(handle, count, bytes, $0, $1) }
        }
    }
}

/// Merges changesets into one (later changes to a row fold into earlier ones).
///
/// ```swift
/// let group = try ChangeGroup()
/// try group.add(monday)
/// try group.add(tuesday)
/// let week = try group.output()
/// ```
public final class ChangeGroup {
    private var handle: OpaquePointer?

    /// An empty group.
    ///
    /// - Throws: ``ChangesetError/sessionExtensionUnavailable``.
    public init() throws {
        try SessionExtension.require()
        var group: OpaquePointer?
        try checkSession(sqlite3changegroup_new(&group), "change group")
        handle = group
    }

    deinit { sqlite3changegroup_delete(handle) }

    /// Adds a changeset (or patchset; a group holds one kind).
    ///
    /// - Throws: `SQLiteError` for damaged bytes or a kind that does not match.
    public func add(_ changeset: Changeset) throws {
        try changeset.withBytes { count, bytes in
            try checkSession(sqlite3changegroup_add(handle, count, bytes), "change group")
        }
    }

    /// The merged changeset.
    ///
    /// - Throws: `SQLiteError` from SQLite.
    public func output() throws -> Changeset {
        try Changeset.output { sqlite3changegroup_output(handle, $0, $1) }
    }
}
