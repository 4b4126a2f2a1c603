import Foundation
import StrataTestSupport
import Testing

#if os(Linux)
/// The tests' own child-process launcher (Foundation's `Process` crashed the suite, see
/// `ChildProcess`): statuses, pipes, the null device, and no descriptor leaking into a child.
@Suite struct ChildProcessTests {
    static func shell(_ script: String, configure: (ChildProcess) -> Void = { _ in }) throws -> (ChildProcess, String) {
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", script]
        let pipe = Pipe()
        child.standardOutput = pipe
        configure(child)
        try child.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        return (child, String(decoding: output, as: UTF8.self))
    }

    @Test func exitCodesSignalsAndOutputComeBack() throws {
        let (ok, text) = try Self.shell("printf 'a\\nb'; exit 3")
        #expect(text == "a\nb")
        #expect(ok.terminationStatus == 3 && ok.terminationReason == .exit)
        let (killed, _) = try Self.shell("kill -9 $$")
        #expect(killed.terminationStatus == SIGKILL && killed.terminationReason == .uncaughtSignal)
        #expect(!killed.isRunning)
    }

    @Test func directoryEnvironmentAndNullDeviceAreTheChildsOwn() throws {
        let directory = try TemporaryDirectory()
        let (child, text) = try Self.shell("pwd; printf %s \"$STRATA_CHILD\"; cat; echo err >&2") {
            $0.currentDirectoryURL = directory.url
            $0.environment = ["STRATA_CHILD": "x'y\"z", "PATH": "/usr/bin:/bin"]
            $0.standardInput = FileHandle.nullDevice
            $0.standardError = FileHandle.nullDevice
        }
        let resolved = directory.url.resolvingSymlinksInPath().path
        #expect(text == "\(resolved)\nx'y\"z")
        #expect(child.terminationStatus == 0)
    }

    /// A child given no directory starts in the temporary directory, not in this process's
    /// working directory of the moment: the README suite moves that into a folder it removes,
    /// and a child started meanwhile (`pyenv`'s shims) failed to run there.
    @Test func aChildWithoutADirectoryStartsInTheTemporaryDirectory() throws {
        let (child, text) = try Self.shell("pwd")
        let expected = FileManager.default.temporaryDirectory.resolvingSymlinksInPath().path
        #expect(child.terminationStatus == 0)
        #expect(URL(fileURLWithPath: text.trimmingCharacters(in: .newlines)).resolvingSymlinksInPath().path == expected)
    }

    /// With more than a thousand descriptors open (the parallel suite's load), children start
    /// every time and see only their three standard streams: a pipe another test is reading
    /// would otherwise stay open in them and its reader never see the end.
    @Test func aThousandOpenDescriptorsNeitherCrashNorLeakIntoTheChild() throws {
        var extra: [Int32] = []
        defer { for descriptor in extra { close(descriptor) } }
        for _ in 0..<1_100 {
            let descriptor = open("/dev/null", O_RDONLY)
            try #require(descriptor >= 0, "open /dev/null: errno \(errno)")
            extra.append(descriptor)
        }
        for round in 0..<20 {
            // The listing's own descriptor is the one above 2 that `ls` opens itself.
            let (child, text) = try Self.shell("ls /proc/self/fd")
            let seen = Set(text.split(whereSeparator: \.isNewline).compactMap { Int32($0) })
            #expect(child.terminationStatus == 0, "round \(round)")
            #expect(seen.subtracting([0, 1, 2]).count <= 1, "round \(round): the child saw \(seen.sorted())")
        }
    }

    @Test func aMissingExecutableIsAnErrorNotACrash() {
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/nonexistent/strata-child")
        #expect(throws: ChildProcess.SpawnFailure.self) { try child.run() }
        #expect(!child.isRunning)
    }
}
#endif
