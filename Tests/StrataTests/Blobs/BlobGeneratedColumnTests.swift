import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// SQLite 3.40's `sqlite3_blob_open` counts a VIRTUAL generated column that the row does not
/// store, so it opens the next stored column instead of the one named: reads return another
/// column's bytes and writes overwrite it. Strata asks SQLite once whether it does, and then
/// refuses such a column with a clear error rather than touch the wrong one.
@Suite struct BlobGeneratedColumnTests {
    @Test func aColumnAfterAVirtualGeneratedColumnIsNeverMisplaced() throws {
        let connection = try Connection()
        try connection.execute(
            """
            CREATE TABLE t(a, g AS (a * 2), b BLOB, c BLOB);
            INSERT INTO t(rowid, a, b, c) VALUES(1, 1, x'0101', x'020202')
            """)
        do {
            let blob = try connection.openBlob(table: "t", column: "b", rowID: 1, writable: true)
            defer { blob.close() }
            // Where SQLite places it right, the handle is on b's two bytes.
            #expect(!Blob.misplacesColumnsAfterVirtualGeneratedOnes)
            #expect(blob.count == 2)
            try blob.write(Data([9, 9]))
        } catch let error as SQLiteError {
            if Blob.refusesTablesWithGeneratedColumns {
                // SQLite 3.54 refuses any table with a generated column itself.
                #expect(error.message.contains("generated columns"), "\(error.message)")
            } else {
                #expect(Blob.misplacesColumnsAfterVirtualGeneratedOnes)
                #expect(error.message.contains("VIRTUAL generated column"), "\(error.message)")
            }
        }
        // c was never touched, whatever happened to b.
        #expect(try connection.query("SELECT hex(c) FROM t") as String? == "020202")
        let b: String? = try connection.query("SELECT hex(b) FROM t")
        #expect(b == "0101" || b == "0909")
    }

    @Test func columnsBeforeOrWithStoredGeneratedColumnsStillOpen() throws {
        let connection = try Connection()
        try connection.execute(
            """
            CREATE TABLE t(a, b BLOB, g AS (a * 2), s AS (a * 3) STORED, c BLOB);
            INSERT INTO t(rowid, a, b, c) VALUES(1, 1, x'0101', x'020202')
            """)
        if Blob.refusesTablesWithGeneratedColumns {
            // SQLite 3.54: no blob of such a table opens, and the refusal is SQLite's own.
            let error = sqliteError { _ = try connection.openBlob(table: "t", column: "b", rowID: 1, writable: true) }
            #expect(error?.message.contains("cannot open table with generated columns") == true, "\(String(describing: error))")
            return
        }
        let blob = try connection.openBlob(table: "t", column: "b", rowID: 1, writable: true)
        try blob.write(Data([7, 7]))
        blob.close()
        #expect(try connection.query("SELECT hex(b) || '/' || hex(c) FROM t") as String? == "0707/020202")
        if !Blob.misplacesColumnsAfterVirtualGeneratedOnes {
            let c = try connection.openBlob(table: "t", column: "c", rowID: 1)
            #expect(c.count == 3)
        } else {
            #expect(throws: SQLiteError.self) { try connection.openBlob(table: "t", column: "c", rowID: 1) }
        }
    }

    @Test func anAttachedSchemaIsCheckedToo() throws {
        let connection = try Connection()
        try connection.execute(
            """
            ATTACH ':memory:' AS other;
            CREATE TABLE other.t(a, g AS (a * 2), b BLOB, c BLOB);
            INSERT INTO other.t(rowid, a, b, c) VALUES(1, 1, x'0101', x'020202')
            """)
        if Blob.misplacesColumnsAfterVirtualGeneratedOnes || Blob.refusesTablesWithGeneratedColumns {
            #expect(throws: SQLiteError.self) { try connection.openBlob(table: "t", column: "b", rowID: 1, schema: "other") }
        } else {
            let blob = try connection.openBlob(table: "t", column: "b", rowID: 1, schema: "other")
            #expect(blob.count == 2)
        }
    }
}
