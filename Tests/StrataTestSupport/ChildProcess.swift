import Foundation

#if os(Linux)
import Glibc

/// The part of Foundation's `Process` the tests use, started with `posix_spawn` directly.
///
/// Why not `Process`: on Linux its `run()` lists `/proc/self/fd` by copying each `dirent`'s whole
/// 256-byte name, reading past glibc's buffer (swift-corelibs-foundation #5472). With a thousand
/// descriptors open, which the parallel suite reaches, a run crashed the test process with
/// SIGSEGV in CI. Here the child closes every descriptor from 3 up with
/// `posix_spawn_file_actions_addclosefrom_np`, so nothing is listed at all, and a pipe another
/// test is reading is never inherited by this child (which would keep its end open).
///
/// Spawning is unsafe with `fork` in a threaded process; `posix_spawn` is not.
///
/// What `Process` has as properties to set before `run()` are the fields of ``Settings``, read and
/// written on the child through dynamic member lookup: `child.arguments = [...]`.
@dynamicMemberLookup
public final class ChildProcess: Sendable {
    public struct Settings {
        public var executableURL: URL?
        public var arguments: [String]?
        /// The child's whole environment; `nil` passes this process's own.
        public var environment: [String: String]?
        /// Where the child starts; `nil` starts it in the temporary directory.
        public var currentDirectoryURL: URL?
        /// A `Pipe` or a `FileHandle`; `nil` (the default) inherits this process's own.
        public var standardInput: Any?
        public var standardOutput: Any?
        public var standardError: Any?
    }

    private enum State {
        case notStarted
        case running(pid_t)
        case exited(pid: pid_t, status: Int32)
    }

    // Settings are written before `run()` and read by it; the state is read by any thread that
    // waits. Both sit behind one lock.
    private let lock = NSLock()
    nonisolated(unsafe) private var settings = Settings()
    nonisolated(unsafe) private var state = State.notStarted

    public init() {}

    /// A child still running when the last reference goes is killed and reaped, so no test
    /// leaves a process or a zombie behind it.
    deinit {
        if case .running(let pid) = state {
            _ = kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        }
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The setting at `keyPath`, read and written under the lock.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<Settings, Value>) -> Value {
        get { locked { settings[keyPath: keyPath] } }
        set { locked { settings[keyPath: keyPath] = newValue } }
    }

    public var processIdentifier: Int32 {
        locked {
            switch state {
            case .notStarted: 0
            case .running(let pid), .exited(let pid, _): pid
            }
        }
    }

    /// Reaps the child if it has ended, as `Process.isRunning` does.
    public var isRunning: Bool {
        locked {
            guard case .running(let pid) = state else { return false }
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                state = .exited(pid: pid, status: status)
                return false
            }
            if reaped == -1, errno != EINTR {
                // ECHILD: nothing to reap, so it cannot be running. Recorded as killed.
                state = .exited(pid: pid, status: SIGKILL)
                return false
            }
            return true
        }
    }

    /// Polls rather than blocking in `waitpid`, so that `isRunning` and this can be asked from
    /// different threads without one of them reaping the other's child.
    public func waitUntilExit() {
        var pause: useconds_t = 200
        while isRunning {
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
    }

    /// The exit code, or the signal that ended the child.
    public var terminationStatus: Int32 {
        locked {
            guard case .exited(_, let status) = state else { return -1 }
            return exited(status) ? (status >> 8) & 0xff : status & 0x7f
        }
    }

    public var terminationReason: Process.TerminationReason {
        locked {
            guard case .exited(_, let status) = state else { return .exit }
            return exited(status) ? .exit : .uncaughtSignal
        }
    }

    private func exited(_ status: Int32) -> Bool { status & 0x7f == 0 }

    public func terminate() { send(SIGTERM) }

    public func interrupt() { send(SIGINT) }

    private func send(_ number: Int32) {
        locked {
            if case .running(let pid) = state { _ = kill(pid, number) }
        }
    }

    public struct SpawnFailure: Error, CustomStringConvertible {
        public let description: String
    }

    public func run() throws {
        try locked {
            guard case .notStarted = state else { throw SpawnFailure(description: "this child was started already") }
            guard let executable = settings.executableURL?.path else { throw SpawnFailure(description: "no executable is set") }
            state = .running(try spawn(executable))
        }
    }

    private func spawn(_ executable: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        try check(posix_spawn_file_actions_init(&actions), "posix_spawn_file_actions_init")
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        try check(posix_spawnattr_init(&attributes), "posix_spawnattr_init")
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, as Foundation's `Process` does: a signal to the test process's
        // group does not reach the child.
        // An empty signal mask and default dispositions: the child must not inherit a SIGTERM
        // blocked by the thread that started it, nor a SIGPIPE this process ignores.
        var none = sigset_t()
        sigemptyset(&none)
        try check(posix_spawnattr_setsigmask(&attributes, &none), "posix_spawnattr_setsigmask")
        var every = sigset_t()
        sigemptyset(&every)
        for number in 1..<32 where number != SIGKILL && number != SIGSTOP { sigaddset(&every, Int32(number)) }
        try check(posix_spawnattr_setsigdefault(&attributes, &every), "posix_spawnattr_setsigdefault")
        let flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        try check(posix_spawnattr_setflags(&attributes, Int16(flags)), "posix_spawnattr_setflags")

        // The ends the parent hands over and must close once the child has them.
        var handedOver: [FileHandle] = []
        let input: (Any?, Int32, Bool) = (settings.standardInput, STDIN_FILENO, true)
        let output: (Any?, Int32, Bool) = (settings.standardOutput, STDOUT_FILENO, false)
        let error: (Any?, Int32, Bool) = (settings.standardError, STDERR_FILENO, false)
        for (stream, target, isInput) in [input, output, error] {
            let handle: FileHandle
            switch stream {
            case nil:
                continue
            case let pipe as Pipe:
                handle = isInput ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                if !handedOver.contains(where: { $0 === handle }) { handedOver.append(handle) }
            case let file as FileHandle:
                handle = file
            default:
                throw SpawnFailure(description: "a standard stream must be a Pipe or a FileHandle")
            }
            if handle.fileDescriptor < 0 {
                // `FileHandle.nullDevice` has no descriptor on Linux; the child opens /dev/null.
                let mode = isInput ? O_RDONLY : O_WRONLY
                try check(posix_spawn_file_actions_addopen(&actions, target, "/dev/null", mode, 0), "addopen /dev/null")
            } else {
                try check(posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target), "adddup2")
            }
        }
        try check(Self.closeFrom(&actions, 3), "posix_spawn_file_actions_addclosefrom_np")
        // Without a directory of its own the child starts in the temporary directory, never in
        // this process's working directory of the moment: the README suite moves that into a
        // folder it removes while other suites' children still run (`pyenv`'s `litestream` shim
        // then failed with "cannot change working directory" in CI).
        let directory = settings.currentDirectoryURL?.path ?? FileManager.default.temporaryDirectory.path
        try check(Self.changeDirectory(&actions, directory), "posix_spawn_file_actions_addchdir_np \(directory)")

        let argv = [executable] + (settings.arguments ?? [])
        let environment = settings.environment ?? ProcessInfo.processInfo.environment
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let result = withCStrings(argv) { arguments in
            withCStrings(envp) { variables in
                posix_spawn(&pid, executable, &actions, &attributes, arguments, variables)
            }
        }
        try check(result, "posix_spawn \(executable)")
        for handle in handedOver { try? handle.close() }
        return pid
    }

    private func check(_ result: Int32, _ what: String) throws {
        guard result != 0 else { return }
        throw SpawnFailure(description: "\(what) failed: \(String(cString: strerror(result)))")
    }

    private func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }

    // Neither is in the Glibc module's headers (they want _GNU_SOURCE); both are in glibc since
    // 2.34 and 2.29, which every supported Linux has.
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    private static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(address, to: type)
    }

    private static func closeFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) -> Int32 {
        guard let function = symbol("posix_spawn_file_actions_addclosefrom_np", as: CloseFrom.self) else { return ENOSYS }
        return function(actions, lowest)
    }

    private static func changeDirectory(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: String) -> Int32 {
        guard let function = symbol("posix_spawn_file_actions_addchdir_np", as: ChangeDirectory.self) else { return ENOSYS }
        return path.withCString { function(actions, $0) }
    }
}
#else
/// Foundation's `Process`, which has no descriptor-listing defect on Apple platforms.
public typealias ChildProcess = Process
#endif
