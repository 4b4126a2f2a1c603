#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Strata
import Testing

/// The backup progress bar and percentage for any pair of counts, including those a restarting
/// backup can report (more pages done than in all) and those before the first step.
///
/// The tool's `ProgressDisplay` draws `BackupPageCount.bar(width:)` and `scaled(to: 100)`; the
/// tests reach them here because SwiftPM does not build the `strata` executable's module for a
/// `@testable import` in a package with macros (tests build for the host-tool destination).
@Suite struct ProgressDisplayTests {
    @Test func anOrdinaryCount() {
        let count = BackupPageCount(completed: 37, total: 120)
        #expect(count.bar(width: 30) == "#########---------------------")
        #expect(count.scaled(to: 100) == 30)
        #expect(BackupPageCount(completed: 29, total: 100).scaled(to: 100) == 29)
        #expect(BackupPageCount(completed: 120, total: 120).bar(width: 30) == String(repeating: "#", count: 30))
    }

    @Test(arguments: [
        // completed > total: the bar's String(repeating:count: width - filled) trapped.
        (Int64(150), Int64(120), 30, 100, Int64(120), Int64(120)),
        (Int64.max, Int64(1), 30, 100, Int64(1), Int64(1)),
        // No total yet, or an empty source.
        (Int64(0), Int64(0), 0, 0, Int64(0), Int64(0)),
        (Int64(5), Int64(0), 0, 0, Int64(0), Int64(0)),
        (Int64(3), Int64(-1), 0, 0, Int64(0), Int64(0)),
        // Negative counts.
        (Int64(-5), Int64(120), 0, 0, Int64(0), Int64(120)),
        (Int64.min, Int64.min, 0, 0, Int64(0), Int64(0)),
        // Counts whose product with the width or 100 overflows Int64.
        (Int64.max, Int64.max, 30, 100, Int64.max, Int64.max),
        (Int64.max / 2, Int64.max, 14, 49, Int64.max / 2, Int64.max)
    ])
    func countsOutOfRangeAreClampedNotTrapped(
        completed: Int64, total: Int64, cells: Int, percent: Int64,
        shownCompleted: Int64, shownTotal: Int64
    ) {
        let count = BackupPageCount(completed: completed, total: total)
        let bar = count.bar(width: 30)
        #expect(bar == String(repeating: "#", count: cells) + String(repeating: "-", count: 30 - cells))
        #expect(count.scaled(to: 100) == percent)
        #expect(count.clamped == BackupPageCount(completed: shownCompleted, total: shownTotal))
        #expect(count.bar(width: 0) == "")
        #expect(count.bar(width: -3) == "")
    }

    @Test func aBackupPublishesConsistentPairs() throws {
        let sandbox = try Sandbox()
        let path = try sandbox.makeBigDatabase("big.db", rows: 3000, wal: false)
        let source = try Connection(storageLocation: .onDisk(path))
        let destination = try Connection(storageLocation: .onDisk(sandbox.path("copy.db")))
        let pages = BackupPageCounter()
        let done = DispatchSemaphore(value: 0)
        let outcome = SharedValue<Bool?>(nil)
        try source.backup(
            to: destination, pageSize: 7, completionQueue: DispatchQueue(label: "test.backup"),
            pageCounter: pages
        ) { result in
            outcome.set(result.isSuccess)
            done.signal()
        }
        var seen: [BackupPageCount] = []
        while done.wait(timeout: .now() + .milliseconds(1)) == .timedOut {
            seen.append(pages.current)
        }
        #expect(outcome.value == true)
        let total = try integer("PRAGMA page_count", in: path) ?? 0
        #expect(pages.current == BackupPageCount(completed: total, total: total))
        #expect(seen.allSatisfy { $0.total == -1 ? $0.completed == 0 : (0...$0.total).contains($0.completed) })
    }
}

/// A value one thread sets and another reads.
final class SharedValue<Value: Sendable>: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    func set(_ value: Value) { lock.withLock { stored = value } }
    var value: Value { lock.withLock { stored } }
}
#endif
