// SQLite's result codes by name, so callers match an error without `import SQLite3` (whose
// extended codes are C macros Swift cannot import). `SQLiteError.resultCode` hands them out;
// anyone who catches an `SQLiteError` compares against them.

/// One of SQLite's result codes, primary (`.constraint`) or extended (`.constraintPrimaryKey`).
///
/// ```swift
/// do { try db.run("INSERT INTO player(id, name) VALUES (?, ?)", 1, "Ann") }
/// catch let error as SQLiteError where error.resultCode == .constraintPrimaryKey { … }
///
/// switch error.resultCode {
/// case .constraintUnique, .constraintPrimaryKey: print("taken")
/// case .busy, .locked: print("try again")
/// default: if error.resultCode.primary == .constraint { print("refused") }
/// }
/// ```
///
/// An extended code carries its primary code in its low byte; ``primary`` returns it. Codes that
/// a later SQLite adds still round-trip through ``rawValue``; their description is the number.
/// See <https://www.sqlite.org/rescode.html>.
public struct SQLiteResultCode: RawRepresentable, Hashable, Sendable {
    /// SQLite's integer value of the code.
    public let rawValue: Int32

    /// Wraps any integer SQLite returned, named here or not.
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The extended code `number` of `primary`, laid out as SQLite does (`primary | number << 8`).
    private init(_ primary: SQLiteResultCode, _ number: Int32) {
        rawValue = primary.rawValue | (number << 8)
    }

    /// The primary code of an extended one (`.constraint` for `.constraintPrimaryKey`); a primary
    /// code returns itself.
    public var primary: SQLiteResultCode { SQLiteResultCode(rawValue: rawValue & 0xFF) }

    /// Whether this is an extended code rather than a primary one.
    public var isExtended: Bool { rawValue & ~0xFF != 0 }

    // MARK: - Primary codes

    /// Success (`SQLITE_OK`).
    public static let ok = SQLiteResultCode(rawValue: 0)
    /// A generic error, such as an SQL syntax error or a missing table (`SQLITE_ERROR`).
    public static let error = SQLiteResultCode(rawValue: 1)
    /// An internal malfunction of SQLite (`SQLITE_INTERNAL`).
    public static let `internal` = SQLiteResultCode(rawValue: 2)
    /// The file system refused the access mode the database was opened with (`SQLITE_PERM`).
    public static let perm = SQLiteResultCode(rawValue: 3)
    /// An operation was aborted, usually by a callback (`SQLITE_ABORT`).
    public static let abort = SQLiteResultCode(rawValue: 4)
    /// Another connection, often in another process, holds a conflicting lock on the database
    /// file (`SQLITE_BUSY`).
    public static let busy = SQLiteResultCode(rawValue: 5)
    /// A conflict inside this connection or its shared cache (`SQLITE_LOCKED`).
    public static let locked = SQLiteResultCode(rawValue: 6)
    /// A memory allocation failed (`SQLITE_NOMEM`).
    public static let noMemory = SQLiteResultCode(rawValue: 7)
    /// A write to a database opened read-only, or that cannot be written (`SQLITE_READONLY`).
    public static let readOnly = SQLiteResultCode(rawValue: 8)
    /// The operation was interrupted (`SQLITE_INTERRUPT`).
    public static let interrupt = SQLiteResultCode(rawValue: 9)
    /// The operating system reported an I/O error (`SQLITE_IOERR`).
    public static let ioError = SQLiteResultCode(rawValue: 10)
    /// The database file is damaged (`SQLITE_CORRUPT`).
    public static let corrupt = SQLiteResultCode(rawValue: 11)
    /// An unknown file-control opcode, among others (`SQLITE_NOTFOUND`).
    public static let notFound = SQLiteResultCode(rawValue: 12)
    /// The disk, or the database's size limit, is full (`SQLITE_FULL`).
    public static let full = SQLiteResultCode(rawValue: 13)
    /// The file could not be opened (`SQLITE_CANTOPEN`).
    public static let cantOpen = SQLiteResultCode(rawValue: 14)
    /// A problem with the WAL locking protocol (`SQLITE_PROTOCOL`).
    public static let `protocol` = SQLiteResultCode(rawValue: 15)
    /// Not currently used by SQLite (`SQLITE_EMPTY`).
    public static let empty = SQLiteResultCode(rawValue: 16)
    /// The schema changed under a prepared statement (`SQLITE_SCHEMA`).
    public static let schema = SQLiteResultCode(rawValue: 17)
    /// A string, blob or statement exceeds a size limit (`SQLITE_TOOBIG`).
    public static let tooBig = SQLiteResultCode(rawValue: 18)
    /// A constraint was violated; the extended code says which kind (`SQLITE_CONSTRAINT`).
    public static let constraint = SQLiteResultCode(rawValue: 19)
    /// A value of the wrong type, such as a non-integer rowid (`SQLITE_MISMATCH`).
    public static let mismatch = SQLiteResultCode(rawValue: 20)
    /// The library was used incorrectly (`SQLITE_MISUSE`).
    public static let misuse = SQLiteResultCode(rawValue: 21)
    /// The host lacks large-file support (`SQLITE_NOLFS`).
    public static let noLFS = SQLiteResultCode(rawValue: 22)
    /// An authorizer refused the statement (`SQLITE_AUTH`).
    public static let auth = SQLiteResultCode(rawValue: 23)
    /// Not currently used by SQLite (`SQLITE_FORMAT`).
    public static let format = SQLiteResultCode(rawValue: 24)
    /// A parameter index is out of range (`SQLITE_RANGE`).
    public static let range = SQLiteResultCode(rawValue: 25)
    /// The file is not a database (`SQLITE_NOTADB`).
    public static let notADatabase = SQLiteResultCode(rawValue: 26)
    /// An unusual event worth logging (`SQLITE_NOTICE`).
    public static let notice = SQLiteResultCode(rawValue: 27)
    /// A warning worth logging (`SQLITE_WARNING`).
    public static let warning = SQLiteResultCode(rawValue: 28)
    /// A step produced a row (`SQLITE_ROW`).
    public static let row = SQLiteResultCode(rawValue: 100)
    /// A step finished (`SQLITE_DONE`).
    public static let done = SQLiteResultCode(rawValue: 101)

    // MARK: - Extended codes of .error

    /// A needed collating sequence is not defined (`SQLITE_ERROR_MISSING_COLLSEQ`).
    public static let errorMissingCollSeq = SQLiteResultCode(.error, 1)
    /// `SQLITE_ERROR_RETRY` (SQLite's internal retry of a prepare).
    public static let errorRetry = SQLiteResultCode(.error, 2)
    /// A historical snapshot cannot be opened (`SQLITE_ERROR_SNAPSHOT`).
    public static let errorSnapshot = SQLiteResultCode(.error, 3)

    // MARK: - Extended codes of .ioError

    /// `SQLITE_IOERR_READ`.
    public static let ioErrorRead = SQLiteResultCode(.ioError, 1)
    /// A read returned fewer bytes than asked (`SQLITE_IOERR_SHORT_READ`).
    public static let ioErrorShortRead = SQLiteResultCode(.ioError, 2)
    /// `SQLITE_IOERR_WRITE`.
    public static let ioErrorWrite = SQLiteResultCode(.ioError, 3)
    /// `SQLITE_IOERR_FSYNC`.
    public static let ioErrorFsync = SQLiteResultCode(.ioError, 4)
    /// `SQLITE_IOERR_DIR_FSYNC`.
    public static let ioErrorDirFsync = SQLiteResultCode(.ioError, 5)
    /// `SQLITE_IOERR_TRUNCATE`.
    public static let ioErrorTruncate = SQLiteResultCode(.ioError, 6)
    /// `SQLITE_IOERR_FSTAT`.
    public static let ioErrorFstat = SQLiteResultCode(.ioError, 7)
    /// `SQLITE_IOERR_UNLOCK`.
    public static let ioErrorUnlock = SQLiteResultCode(.ioError, 8)
    /// `SQLITE_IOERR_RDLOCK`.
    public static let ioErrorReadLock = SQLiteResultCode(.ioError, 9)
    /// `SQLITE_IOERR_DELETE`.
    public static let ioErrorDelete = SQLiteResultCode(.ioError, 10)
    /// `SQLITE_IOERR_BLOCKED` (no longer used).
    public static let ioErrorBlocked = SQLiteResultCode(.ioError, 11)
    /// `SQLITE_IOERR_NOMEM`.
    public static let ioErrorNoMemory = SQLiteResultCode(.ioError, 12)
    /// `SQLITE_IOERR_ACCESS`.
    public static let ioErrorAccess = SQLiteResultCode(.ioError, 13)
    /// `SQLITE_IOERR_CHECKRESERVEDLOCK`.
    public static let ioErrorCheckReservedLock = SQLiteResultCode(.ioError, 14)
    /// `SQLITE_IOERR_LOCK`.
    public static let ioErrorLock = SQLiteResultCode(.ioError, 15)
    /// `SQLITE_IOERR_CLOSE`.
    public static let ioErrorClose = SQLiteResultCode(.ioError, 16)
    /// `SQLITE_IOERR_DIR_CLOSE` (no longer used).
    public static let ioErrorDirClose = SQLiteResultCode(.ioError, 17)
    /// `SQLITE_IOERR_SHMOPEN`.
    public static let ioErrorShmOpen = SQLiteResultCode(.ioError, 18)
    /// `SQLITE_IOERR_SHMSIZE`.
    public static let ioErrorShmSize = SQLiteResultCode(.ioError, 19)
    /// `SQLITE_IOERR_SHMLOCK` (no longer used).
    public static let ioErrorShmLock = SQLiteResultCode(.ioError, 20)
    /// `SQLITE_IOERR_SHMMAP`.
    public static let ioErrorShmMap = SQLiteResultCode(.ioError, 21)
    /// `SQLITE_IOERR_SEEK`.
    public static let ioErrorSeek = SQLiteResultCode(.ioError, 22)
    /// `SQLITE_IOERR_DELETE_NOENT`.
    public static let ioErrorDeleteNoEntry = SQLiteResultCode(.ioError, 23)
    /// `SQLITE_IOERR_MMAP`.
    public static let ioErrorMmap = SQLiteResultCode(.ioError, 24)
    /// `SQLITE_IOERR_GETTEMPPATH`.
    public static let ioErrorGetTempPath = SQLiteResultCode(.ioError, 25)
    /// `SQLITE_IOERR_CONVPATH`.
    public static let ioErrorConvPath = SQLiteResultCode(.ioError, 26)
    /// `SQLITE_IOERR_VNODE`.
    public static let ioErrorVnode = SQLiteResultCode(.ioError, 27)
    /// `SQLITE_IOERR_AUTH`.
    public static let ioErrorAuth = SQLiteResultCode(.ioError, 28)
    /// `SQLITE_IOERR_BEGIN_ATOMIC`.
    public static let ioErrorBeginAtomic = SQLiteResultCode(.ioError, 29)
    /// `SQLITE_IOERR_COMMIT_ATOMIC`.
    public static let ioErrorCommitAtomic = SQLiteResultCode(.ioError, 30)
    /// `SQLITE_IOERR_ROLLBACK_ATOMIC`.
    public static let ioErrorRollbackAtomic = SQLiteResultCode(.ioError, 31)
    /// A checksum VFS found damaged data (`SQLITE_IOERR_DATA`).
    public static let ioErrorData = SQLiteResultCode(.ioError, 32)
    /// The file system itself is damaged (`SQLITE_IOERR_CORRUPTFS`).
    public static let ioErrorCorruptFS = SQLiteResultCode(.ioError, 33)
    /// A memory-mapped page could not be read (`SQLITE_IOERR_IN_PAGE`, SQLite 3.45 and later).
    public static let ioErrorInPage = SQLiteResultCode(.ioError, 34)

    // MARK: - Extended codes of .locked, .busy, .cantOpen, .corrupt

    /// A shared-cache table lock conflict (`SQLITE_LOCKED_SHAREDCACHE`).
    public static let lockedSharedCache = SQLiteResultCode(.locked, 1)
    /// A virtual table reported a lock conflict (`SQLITE_LOCKED_VTAB`).
    public static let lockedVirtualTable = SQLiteResultCode(.locked, 2)
    /// Another connection is recovering a WAL file (`SQLITE_BUSY_RECOVERY`).
    public static let busyRecovery = SQLiteResultCode(.busy, 1)
    /// A read transaction's snapshot is older than the last commit, so it cannot start writing
    /// (`SQLITE_BUSY_SNAPSHOT`): retry the whole transaction.
    public static let busySnapshot = SQLiteResultCode(.busy, 2)
    /// A blocking lock timed out (`SQLITE_BUSY_TIMEOUT`).
    public static let busyTimeout = SQLiteResultCode(.busy, 3)
    /// No temporary directory was found (`SQLITE_CANTOPEN_NOTEMPDIR`).
    public static let cantOpenNoTempDir = SQLiteResultCode(.cantOpen, 1)
    /// The path is a directory (`SQLITE_CANTOPEN_ISDIR`).
    public static let cantOpenIsDirectory = SQLiteResultCode(.cantOpen, 2)
    /// The path could not be made absolute (`SQLITE_CANTOPEN_FULLPATH`).
    public static let cantOpenFullPath = SQLiteResultCode(.cantOpen, 3)
    /// `SQLITE_CANTOPEN_CONVPATH`.
    public static let cantOpenConvPath = SQLiteResultCode(.cantOpen, 4)
    /// `SQLITE_CANTOPEN_DIRTYWAL` (not used).
    public static let cantOpenDirtyWAL = SQLiteResultCode(.cantOpen, 5)
    /// The path is a symbolic link and links were refused (`SQLITE_CANTOPEN_SYMLINK`).
    public static let cantOpenSymlink = SQLiteResultCode(.cantOpen, 6)
    /// A virtual table found damaged content (`SQLITE_CORRUPT_VTAB`).
    public static let corruptVirtualTable = SQLiteResultCode(.corrupt, 1)
    /// `sqlite_sequence` is damaged (`SQLITE_CORRUPT_SEQUENCE`).
    public static let corruptSequence = SQLiteResultCode(.corrupt, 2)
    /// An index does not match its table (`SQLITE_CORRUPT_INDEX`).
    public static let corruptIndex = SQLiteResultCode(.corrupt, 3)

    // MARK: - Extended codes of .readOnly and .abort

    /// A WAL needs recovery that a read-only connection cannot do (`SQLITE_READONLY_RECOVERY`).
    public static let readOnlyRecovery = SQLiteResultCode(.readOnly, 1)
    /// The shared-memory file could not be locked (`SQLITE_READONLY_CANTLOCK`).
    public static let readOnlyCantLock = SQLiteResultCode(.readOnly, 2)
    /// A hot journal needs rolling back and the file is read-only (`SQLITE_READONLY_ROLLBACK`).
    public static let readOnlyRollback = SQLiteResultCode(.readOnly, 3)
    /// The database file was moved or deleted while open (`SQLITE_READONLY_DBMOVED`).
    public static let readOnlyDatabaseMoved = SQLiteResultCode(.readOnly, 4)
    /// The shared-memory file cannot be initialized (`SQLITE_READONLY_CANTINIT`).
    public static let readOnlyCantInit = SQLiteResultCode(.readOnly, 5)
    /// The directory holding the database is read-only (`SQLITE_READONLY_DIRECTORY`).
    public static let readOnlyDirectory = SQLiteResultCode(.readOnly, 6)
    /// A statement was aborted because its transaction rolled back (`SQLITE_ABORT_ROLLBACK`).
    public static let abortRollback = SQLiteResultCode(.abort, 2)

    // MARK: - Extended codes of .constraint

    /// A CHECK constraint failed (`SQLITE_CONSTRAINT_CHECK`).
    public static let constraintCheck = SQLiteResultCode(.constraint, 1)
    /// A commit hook turned the commit into a rollback (`SQLITE_CONSTRAINT_COMMITHOOK`).
    public static let constraintCommitHook = SQLiteResultCode(.constraint, 2)
    /// A foreign key constraint failed (`SQLITE_CONSTRAINT_FOREIGNKEY`).
    public static let constraintForeignKey = SQLiteResultCode(.constraint, 3)
    /// An application function reported a constraint error (`SQLITE_CONSTRAINT_FUNCTION`).
    public static let constraintFunction = SQLiteResultCode(.constraint, 4)
    /// A NOT NULL constraint failed (`SQLITE_CONSTRAINT_NOTNULL`).
    public static let constraintNotNull = SQLiteResultCode(.constraint, 5)
    /// A PRIMARY KEY constraint failed (`SQLITE_CONSTRAINT_PRIMARYKEY`).
    public static let constraintPrimaryKey = SQLiteResultCode(.constraint, 6)
    /// A trigger's `RAISE` reported the error (`SQLITE_CONSTRAINT_TRIGGER`).
    public static let constraintTrigger = SQLiteResultCode(.constraint, 7)
    /// A UNIQUE constraint failed (`SQLITE_CONSTRAINT_UNIQUE`).
    public static let constraintUnique = SQLiteResultCode(.constraint, 8)
    /// A virtual table reported a constraint error (`SQLITE_CONSTRAINT_VTAB`).
    public static let constraintVirtualTable = SQLiteResultCode(.constraint, 9)
    /// A rowid is not unique (`SQLITE_CONSTRAINT_ROWID`).
    public static let constraintRowID = SQLiteResultCode(.constraint, 10)
    /// A row that a trigger is still using was changed (`SQLITE_CONSTRAINT_PINNED`).
    public static let constraintPinned = SQLiteResultCode(.constraint, 11)
    /// A STRICT table refused a value of the wrong type (`SQLITE_CONSTRAINT_DATATYPE`).
    public static let constraintDataType = SQLiteResultCode(.constraint, 12)

    // MARK: - Extended codes of .notice, .warning, .auth and .ok

    /// A WAL file was recovered (`SQLITE_NOTICE_RECOVER_WAL`).
    public static let noticeRecoverWAL = SQLiteResultCode(.notice, 1)
    /// A hot journal was rolled back (`SQLITE_NOTICE_RECOVER_ROLLBACK`).
    public static let noticeRecoverRollback = SQLiteResultCode(.notice, 2)
    /// `SQLITE_NOTICE_RBU` (the RBU extension).
    public static let noticeRBU = SQLiteResultCode(.notice, 3)
    /// SQLite built an automatic index (`SQLITE_WARNING_AUTOINDEX`).
    public static let warningAutoIndex = SQLiteResultCode(.warning, 1)
    /// `SQLITE_AUTH_USER` (the user-authentication extension).
    public static let authUser = SQLiteResultCode(.auth, 1)
    /// An extension asked to stay loaded (`SQLITE_OK_LOAD_PERMANENTLY`).
    public static let okLoadPermanently = SQLiteResultCode(.ok, 1)
    /// `SQLITE_OK_SYMLINK` (SQLite's internal use).
    public static let okSymlink = SQLiteResultCode(.ok, 2)

    /// Every code named above, with its name: the one list `description` reads.
    static let named: [(SQLiteResultCode, String)] = [
        (.ok, "ok"), (.error, "error"), (.internal, "internal"), (.perm, "perm"), (.abort, "abort"),
        (.busy, "busy"), (.locked, "locked"), (.noMemory, "noMemory"), (.readOnly, "readOnly"),
        (.interrupt, "interrupt"), (.ioError, "ioError"), (.corrupt, "corrupt"), (.notFound, "notFound"),
        (.full, "full"), (.cantOpen, "cantOpen"), (.protocol, "protocol"), (.empty, "empty"),
        (.schema, "schema"), (.tooBig, "tooBig"), (.constraint, "constraint"), (.mismatch, "mismatch"),
        (.misuse, "misuse"), (.noLFS, "noLFS"), (.auth, "auth"), (.format, "format"), (.range, "range"),
        (.notADatabase, "notADatabase"), (.notice, "notice"), (.warning, "warning"), (.row, "row"),
        (.done, "done"),
        (.errorMissingCollSeq, "errorMissingCollSeq"), (.errorRetry, "errorRetry"),
        (.errorSnapshot, "errorSnapshot"),
        (.ioErrorRead, "ioErrorRead"), (.ioErrorShortRead, "ioErrorShortRead"), (.ioErrorWrite, "ioErrorWrite"),
        (.ioErrorFsync, "ioErrorFsync"), (.ioErrorDirFsync, "ioErrorDirFsync"),
        (.ioErrorTruncate, "ioErrorTruncate"), (.ioErrorFstat, "ioErrorFstat"), (.ioErrorUnlock, "ioErrorUnlock"),
        (.ioErrorReadLock, "ioErrorReadLock"), (.ioErrorDelete, "ioErrorDelete"),
        (.ioErrorBlocked, "ioErrorBlocked"), (.ioErrorNoMemory, "ioErrorNoMemory"),
        (.ioErrorAccess, "ioErrorAccess"), (.ioErrorCheckReservedLock, "ioErrorCheckReservedLock"),
        (.ioErrorLock, "ioErrorLock"), (.ioErrorClose, "ioErrorClose"), (.ioErrorDirClose, "ioErrorDirClose"),
        (.ioErrorShmOpen, "ioErrorShmOpen"), (.ioErrorShmSize, "ioErrorShmSize"),
        (.ioErrorShmLock, "ioErrorShmLock"), (.ioErrorShmMap, "ioErrorShmMap"), (.ioErrorSeek, "ioErrorSeek"),
        (.ioErrorDeleteNoEntry, "ioErrorDeleteNoEntry"), (.ioErrorMmap, "ioErrorMmap"),
        (.ioErrorGetTempPath, "ioErrorGetTempPath"), (.ioErrorConvPath, "ioErrorConvPath"),
        (.ioErrorVnode, "ioErrorVnode"), (.ioErrorAuth, "ioErrorAuth"),
        (.ioErrorBeginAtomic, "ioErrorBeginAtomic"), (.ioErrorCommitAtomic, "ioErrorCommitAtomic"),
        (.ioErrorRollbackAtomic, "ioErrorRollbackAtomic"), (.ioErrorData, "ioErrorData"),
        (.ioErrorCorruptFS, "ioErrorCorruptFS"), (.ioErrorInPage, "ioErrorInPage"),
        (.lockedSharedCache, "lockedSharedCache"), (.lockedVirtualTable, "lockedVirtualTable"),
        (.busyRecovery, "busyRecovery"), (.busySnapshot, "busySnapshot"), (.busyTimeout, "busyTimeout"),
        (.cantOpenNoTempDir, "cantOpenNoTempDir"), (.cantOpenIsDirectory, "cantOpenIsDirectory"),
        (.cantOpenFullPath, "cantOpenFullPath"), (.cantOpenConvPath, "cantOpenConvPath"),
        (.cantOpenDirtyWAL, "cantOpenDirtyWAL"), (.cantOpenSymlink, "cantOpenSymlink"),
        (.corruptVirtualTable, "corruptVirtualTable"), (.corruptSequence, "corruptSequence"),
        (.corruptIndex, "corruptIndex"),
        (.readOnlyRecovery, "readOnlyRecovery"), (.readOnlyCantLock, "readOnlyCantLock"),
        (.readOnlyRollback, "readOnlyRollback"), (.readOnlyDatabaseMoved, "readOnlyDatabaseMoved"),
        (.readOnlyCantInit, "readOnlyCantInit"), (.readOnlyDirectory, "readOnlyDirectory"),
        (.abortRollback, "abortRollback"),
        (.constraintCheck, "constraintCheck"), (.constraintCommitHook, "constraintCommitHook"),
        (.constraintForeignKey, "constraintForeignKey"), (.constraintFunction, "constraintFunction"),
        (.constraintNotNull, "constraintNotNull"), (.constraintPrimaryKey, "constraintPrimaryKey"),
        (.constraintTrigger, "constraintTrigger"), (.constraintUnique, "constraintUnique"),
        (.constraintVirtualTable, "constraintVirtualTable"), (.constraintRowID, "constraintRowID"),
        (.constraintPinned, "constraintPinned"), (.constraintDataType, "constraintDataType"),
        (.noticeRecoverWAL, "noticeRecoverWAL"), (.noticeRecoverRollback, "noticeRecoverRollback"),
        (.noticeRBU, "noticeRBU"), (.warningAutoIndex, "warningAutoIndex"), (.authUser, "authUser"),
        (.okLoadPermanently, "okLoadPermanently"), (.okSymlink, "okSymlink")
    ]

    /// `named` by code, built once.
    private static let names: [Int32: String] = Dictionary(named.map { ($0.0.rawValue, $0.1) }, uniquingKeysWith: { first, _ in first })
}

extension SQLiteResultCode: CustomStringConvertible {
    /// The code's name as spelled here (`constraintPrimaryKey`); a code without one reads
    /// `code 1234 (constraint)`, naming its primary code when that is known.
    public var description: String {
        if let name = Self.names[rawValue] { return name }
        if isExtended, let primaryName = Self.names[rawValue & 0xFF] { return "code \(rawValue) (\(primaryName))" }
        return "code \(rawValue)"
    }
}
