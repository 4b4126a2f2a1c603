import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
@testable import StrataKernel
@testable import StrataSchema

final class Tracked {}

/// Closures handed to SQLite live exactly as long as their registration.
@Suite struct CallbackLifetimeTests {
    @Test func functionClosuresAreReleasedWhenReplacedRemovedOrClosed() throws {
        weak var first: Tracked?
        weak var second: Tracked?
        weak var third: Tracked?
        do {
            let db = try Connection()
            do {
                let tracked = Tracked()
                first = tracked
                try db.addScalarFunction(named: "f", argumentCount: 0) { _, _ in
                    _ = tracked; return .integer(1)
                }
            }
            #expect(first != nil)
            #expect(try db.query("SELECT f()") == 1)
            do {
                let tracked = Tracked()
                second = tracked
                try db.addScalarFunction(named: "f", argumentCount: 0) { _, _ in
                    _ = tracked; return .integer(2)
                }
            }
            #expect(first == nil)
            #expect(try db.query("SELECT f()") == 2)
            try db.removeFunction(named: "f", argumentCount: 0)
            #expect(second == nil)
            do {
                let tracked = Tracked()
                third = tracked
                try db.addAggregateFunction(
                    named: "g", argumentCount: 1, contextObjectFactory: { tracked }, stepFunction: { _, _ in }, finalFunction: { _ in .null })
                db.createCollation(named: "C") { lhs, rhs in
                    _ = tracked; return lhs.compare(rhs)
                }
            }
            #expect(third != nil)
        }
        #expect(third == nil)
    }

    @Test func hookClosuresAreReleasedWhenUnregistered() throws {
        weak var weakTracked: Tracked?
        let db = try Connection()
        do {
            let tracked = Tracked()
            weakTracked = tracked
            db.updateHook { _, _, _, _ in _ = tracked }
            db.commitHook {
                _ = tracked; return false
            }
            db.rollbackHook { _ = tracked }
            db.traceEvent { _ in _ = tracked }
            try db.authorizer { _, _, _, _, _ in
                _ = tracked; return .ok
            }
            try db.busyHandler(
                .custom { _ in
                    _ = tracked; return false
                })
        }
        try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1)")
        #expect(weakTracked != nil)
        db.updateHook(nil)
        db.commitHook(nil)
        db.rollbackHook(nil)
        db.traceEvent(closure: nil)
        try db.authorizer(nil)
        try db.busyHandler(.defaultBehavior)
        #expect(weakTracked == nil)
        #expect(db.callbackBoxes.isEmpty)
    }

    @Test func aggregateObjectsAreReleasedAfterEachGroup() throws {
        final class Counter {
            static let lock = NSLock(); nonisolated(unsafe) static var live = 0
            init() { Counter.lock.withLock { Counter.live += 1 } }
            deinit { Counter.lock.withLock { Counter.live -= 1 } }
        }
        let db = try makeConnection(executing: "CREATE TABLE t(v); INSERT INTO t VALUES(1), (2), (3)")
        try db.addAggregateFunction(
            named: "n", argumentCount: 1, contextObjectFactory: { Counter() },
            stepFunction: { context, _ in _ = context.stepObject },
            finalFunction: { context in context.finalObject == nil ? .null : .integer(1) })
        let groups: [Int] = try db.query("SELECT n(v) FROM t GROUP BY v")
        #expect(groups == [1, 1, 1])
        #expect(Counter.live == 0)
    }
}
