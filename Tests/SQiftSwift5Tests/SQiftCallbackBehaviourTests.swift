import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore

// Functions, collations, trace events, hooks, the authorizer and busy handlers: every callback
// registration form SQift code writes, in Swift 5 mode.
@Suite struct SQiftCallbackBehaviourTests {
    @Test func functionsHooksTrace() throws {
        let db = try Connection()
        try db.addScalarFunction(named: "twice", argumentCount: 1, deterministic: true) { context, values in
            let v = values[0]
            if v.isNull { return .null }
            _ = context.auxilaryData[0]
            _ = v.type; _ = v.numericType; _ = v.integer; _ = v.double; _ = v.text; _ = v.data; _ = v.date; _ = v.buffer
            return .long(v.long * 2)
        }
        let r: Int? = try db.query("SELECT twice(?)", 21)
        #expect(r == 42)
        try db.addAggregateFunction(
            named: "cnt",
            argumentCount: -1,
            contextObjectFactory: { NSMutableArray() },
            stepFunction: { context, values in (context.stepObject as! NSMutableArray).add(values.count) },
            finalFunction: { context in .integer(Int32((context.finalObject as? NSMutableArray)?.count ?? 0)) }
        )
        let c: Int? = try db.query("SELECT cnt(1, 2) FROM (SELECT 1 UNION SELECT 2)")
        #expect(c == 2)
        try db.removeFunction(named: "cnt", argumentCount: -1)
        let results: [Connection.FunctionResult] = [
            .null, .integer(1), .long(1), .double(1), .text(""), .date(Date()), .data(Data()), .zeroData(1), .error(message: "m", code: nil)
        ]
        #expect(results.count == 9)
        db.createCollation(named: "rev") { a, b in b.compare(a) }
        var events: [String] = []
        db.traceEvent(
            mask: Connection.TraceEvent.statementMask | Connection.TraceEvent.profileMask | Connection.TraceEvent.rowMask
                | Connection.TraceEvent.connectionClosedMask
        ) { event in
            events.append(event.description)
        }
        let _: Int? = try db.query("SELECT ?", 5)
        db.traceEvent(closure: nil)
        #expect(!events.isEmpty)
        db.updateHook { type, dbName, table, rowID in _ = (type, dbName, table, rowID) }
        db.updateHook(nil)
        db.commitHook { false }
        db.commitHook(nil)
        db.rollbackHook {}
        db.rollbackHook(nil)
        try db.authorizer { action, p1, p2, p3, p4 in
            _ = (p1, p2, p3, p4)
            return action == .delete ? .deny : .ok
        }
        try db.authorizer(nil)
        try db.busyHandler(.timeout(1))
        try db.busyHandler(.custom { _ in false })
        try db.busyHandler(.defaultBehavior)
        let _: Connection.CheckpointMode = .passive
        let _: Connection.UpdateHookType = .insert
        let _: Connection.AuthorizerResult = .custom(0)
        let _: Connection.BackupResult = .cancelled
    }

    @Test func closingDeliversConnectionClosed() throws {
        var closed = false
        do {
            let connection = try Connection()
            connection.traceEvent(mask: Connection.TraceEvent.connectionClosedMask) { event in
                if case .connectionClosed = event { closed = true }
            }
        }
        #expect(closed)
    }
}
