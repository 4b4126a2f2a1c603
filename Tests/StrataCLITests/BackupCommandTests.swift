#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Strata
import Testing

@Suite struct BackupCommandTests {
    @Test func aBackupWhileAnotherProcessKeepsInsertingPassesIntegrityCheck() throws {
        let sandbox = try Sandbox()
        let source = try sandbox.makeBigDatabase("live.db", rows: 4000)
        let initial = try integer("SELECT count(*) FROM t", in: source) ?? 0
        // A second process: a shell that keeps inserting through the tool until told to stop.
        let binary = try strataBinary().path
        let writer = try sandbox.start(
            "/bin/sh",
            [
                "-c",
                """
                while [ ! -f stop ]; do
                  "$0" query live.db "INSERT INTO t(v) VALUES(randomblob(400))" || exit 1
                done
                """, binary
            ])
        defer { if writer.process.isRunning { writer.process.terminate() } }
        try waitUntil { (try integer("SELECT count(*) FROM t", in: source) ?? 0) >= initial + 3 }

        let result = try sandbox.strata("backup", "live.db", "copy.db", "--pages-per-step", "5")
        let duringBackup = try integer("SELECT count(*) FROM t", in: source) ?? 0
        try waitUntil { (try integer("SELECT count(*) FROM t", in: source) ?? 0) >= duringBackup + 3 }
        _ = FileManager.default.createFile(atPath: sandbox.path("stop"), contents: nil)
        writer.process.waitUntilExit()
        #expect(writer.process.terminationStatus == 0, "writer: \(writer.result().stderr)")

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("integrity_check of copy.db: ok"))
        let copy = try Connection(storageLocation: .onDisk(sandbox.path("copy.db")))
        let integrity: String? = try copy.query("PRAGMA integrity_check")
        #expect(integrity == "ok")
        let copied: Int64 = try copy.query("SELECT count(*) FROM t") ?? 0
        #expect(copied >= initial + 3)
        #expect(copied <= duringBackup)
    }

    @Test func plainProgressLinesWhenNotATerminal() throws {
        let sandbox = try Sandbox()
        try sandbox.makeBigDatabase("big.db", rows: 3000, wal: false)
        let pages = try integer("PRAGMA page_count", in: sandbox.path("big.db")) ?? 0
        let result = try sandbox.strata("backup", "big.db", "copy.db", "--pages-per-step", "10")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "Backing up big.db to copy.db")
        #expect(lines.contains("\(pages)/\(pages) pages (100%)"))
        #expect(lines.last == "Copied \(pages) pages; integrity_check of copy.db: ok")
        #expect(!result.stdout.contains("\r"))
    }

    @Test func aProgressBarOnATerminal() throws {
        let sandbox = try Sandbox()
        try sandbox.makeBigDatabase("big.db", rows: 3000, wal: false)
        let pages = try integer("PRAGMA page_count", in: sandbox.path("big.db")) ?? 0
        // `script` (bsdutils, essential on Debian) runs the tool on a pseudo-terminal.
        let command = "'\(try strataBinary().path)' backup big.db copy.db --pages-per-step 10"
        let result = try sandbox.run(try executable(named: "script"), ["-qec", command, "/dev/null"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("\r[##############################] \(pages)/\(pages) pages (100%)\u{1B}[K"))
        #expect(result.stdout.contains("integrity_check of copy.db: ok"))
        #expect(try integer("SELECT count(*) FROM t", in: sandbox.path("copy.db")) == 3000)
    }

    @Test func neverOverwritesWithoutForce() throws {
        let sandbox = try Sandbox()
        try sandbox.makeCarsDatabase("cars.db")
        try sandbox.makeBigDatabase("other.db", rows: 10)
        let before = try sandbox.snapshot()
        let refused = try sandbox.strata("backup", "cars.db", "other.db")
        #expect(refused.status != 0)
        #expect(refused.errorLines == ["strata: other.db already exists; pass --force to overwrite it"])
        #expect(try sandbox.snapshot() == before)

        let forced = try sandbox.strata("backup", "cars.db", "other.db", "--force", "--pages-per-step", "-1")
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try integer("SELECT count(*) FROM cars", in: sandbox.path("other.db")) == 3)

        let same = try sandbox.strata("backup", "cars.db", "./cars.db", "--force")
        #expect(same.errorLines == ["strata: cars.db and ./cars.db are the same file"])
    }

    @Test func aCopyThatFailsIntegrityCheckIsRemoved() throws {
        let sandbox = try Sandbox()
        // The backup API copies pages as they are, so a source with damaged table pages (its
        // schema page intact, so the tool opens it) gives a copy that fails integrity_check.
        try sandbox.makeDamagedDatabase()
        let before = try sandbox.snapshot()

        let failed = try sandbox.strata("backup", "damaged.db", "copy.db", "--pages-per-step", "-1")
        #expect(failed.status != 0)
        #expect(failed.errorLines.first?.hasPrefix("strata: the copy at copy.db failed integrity_check: ") == true, "\(failed.stderr)")
        for file in ["copy.db", "copy.db-journal", "copy.db-wal", "copy.db-shm"] {
            #expect(!FileManager.default.fileExists(atPath: sandbox.path(file)), "\(file) was left behind")
        }
        #expect(try sandbox.snapshot() == before)

        // A rerun is not refused by a file the failure left.
        try sandbox.makeCarsDatabase("cars.db")
        let rerun = try sandbox.strata("backup", "cars.db", "copy.db")
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try integer("SELECT count(*) FROM cars", in: sandbox.path("copy.db")) == 3)
    }

    @Test func aForcedCopyThatFailsKeepsTheFileThatWasThere() throws {
        let sandbox = try Sandbox()
        try sandbox.makeDamagedDatabase()
        try sandbox.makeCarsDatabase("copy.db")
        let failed = try sandbox.strata("backup", "damaged.db", "copy.db", "--force")
        #expect(failed.status != 0)
        #expect(failed.stderr.contains("failed integrity_check"))
        // Overwritten, as --force allowed, but never removed: the command did not create it.
        #expect(FileManager.default.fileExists(atPath: sandbox.path("copy.db")))
        for file in ["copy.db-journal", "copy.db-wal", "copy.db-shm"] {
            #expect(!FileManager.default.fileExists(atPath: sandbox.path(file)), "\(file) was left behind")
        }
    }

    /// Polls `condition` for up to 30 seconds.
    func waitUntil(_ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(30)
        while try !condition() {
            guard Date() < deadline else { throw TestFailure(message: "condition not met within 30 s") }
            usleep(10_000)
        }
    }
}
#endif
