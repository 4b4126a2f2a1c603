#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// sqlite-vec 0.1.9 itself (PyPI's `sqlite-vec`, installed by `.ci/run`): its distances agree
/// with ours on the same BLOBs, and the BLOBs it makes read back with our decoders.
enum SqliteVec {
    /// `vec0.so`, from `STRATA_SQLITE_VEC` or the installed Python package; nil when absent.
    static let libraryPath: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["STRATA_SQLITE_VEC"], !path.isEmpty { return path }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [environment["STRATA_PYTHON"] ?? "python3", "-c", "import sqlite_vec; print(sqlite_vec.loadable_path())"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        let path = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        // loadable_path() leaves out the suffix SQLite would add; loadExtension wants the file.
        return [path, path + ".so", path + ".dylib"].first { FileManager.default.fileExists(atPath: $0) }
    }()

    /// A connection with sqlite-vec and Strata's vector functions, or nil (the reason printed).
    static func connection(for test: String) throws -> Connection? {
        guard let path = libraryPath else {
            print("\(test): skipped, sqlite-vec is not installed (pip install sqlite-vec==0.1.9, or set STRATA_SQLITE_VEC)")
            return nil
        }
        let db = try Connection()
        do {
            try db.loadExtension(at: path)
        } catch ExtensionError.loadingDisabled {
            print("\(test): skipped, the linked SQLite cannot load extensions")
            return nil
        }
        try db.addVectorFunctions()
        return db
    }
}

@Suite struct SqliteVecDifferentialTests {
    @Test func distancesAgreeWithSqliteVec() async throws {
        // A child process: on a thread of its own, not one of the cooperative pool's.
        try await onOwnThread {
            guard let db = try SqliteVec.connection(for: "distancesAgreeWithSqliteVec") else { return }
            let version: String? = try db.query("SELECT vec_version()")
            #expect(version == "v0.1.9")
            try PropertyCheck.run("sqlite-vec's vec_distance_l2/cosine agree with strata_vec_*", cases: 60) { random in
                let dimensions = VectorGen.dimension(&random)
                // sqlite-vec sums in float32 without the Double pass, so stay where float32 sums are
                // exact enough for both (magnitudes 1e-3…1e3), and away from zero vectors (NaN
                // there, 1 here).
                let scale = Float(pow(10, Double(random.int(-3...3))))
                let a = try FloatVector(VectorGen.values(dimensions, .unit, &random).map { $0 * scale })
                let b = try FloatVector(VectorGen.values(dimensions, .unit, &random).map { $0 * scale })
                guard a.values.contains(where: { $0 != 0 }), b.values.contains(where: { $0 != 0 }) else { return }
                let row: [Double?]? = try db.query(
                    literal: """
                        SELECT vec_distance_l2(\(a), \(b)), strata_vec_distance_l2(\(a), \(b)),
                               vec_distance_cosine(\(a), \(b)), strata_vec_distance_cosine(\(a), \(b))
                        """
                ) { row in (0..<4).map { row[$0] as Double? } }
                guard let values = row, values.count == 4, let theirL2 = values[0], let ourL2 = values[1],
                    let theirCosine = values[2], let ourCosine = values[3]
                else {
                    throw PropertyViolation("no row: \(String(describing: row))")
                }
                try require(abs(theirL2 - ourL2) <= 1e-4 * theirL2 + 1e-30, "L2: sqlite-vec \(theirL2), ours \(ourL2) (\(dimensions) dims)")
                try require(abs(theirCosine - ourCosine) <= 1e-4, "cosine: sqlite-vec \(theirCosine), ours \(ourCosine) (\(dimensions) dims)")
            }
        }
    }

    @Test func sqliteVecBlobsReadBackWithOurDecoders() async throws {
        // A child process: on a thread of its own, not one of the cooperative pool's.
        try await onOwnThread {
            guard let db = try SqliteVec.connection(for: "sqliteVecBlobsReadBackWithOurDecoders") else { return }
            let floats: FloatVector? = try db.query("SELECT vec_f32('[1.5, -2, 0.25, 3e10]')")
            #expect(floats?.values == [1.5, -2, 0.25, 3e10])
            let ours = try FloatVector([0.5, -1, 7])
            let json: String? = try db.query(literal: "SELECT vec_to_json(\(ours))")
            #expect(json == "[0.500000,-1.000000,7.000000]")
            let length: Int? = try db.query(literal: "SELECT vec_length(\(ours))")
            #expect(length == 3)
            // vec_quantize_binary packs signs as BitVector does.
            try PropertyCheck.run("vec_quantize_binary matches BitVector(quantizing:)", cases: 30) { random in
                let dimensions = 8 * random.int(1...64)
                let vector = try VectorGen.vector(dimensions, &random)
                let bits: BitVector? = try db.query(literal: "SELECT vec_quantize_binary(\(vector))")
                try require(bits == BitVector(quantizing: vector), "bits differ for \(dimensions) dims")
                let reversed = try FloatVector(vector.values.reversed())
                // vec_distance_hamming returns a REAL.
                let hamming: [Double?]? = try db.query(
                    literal: """
                        SELECT vec_distance_hamming(vec_quantize_binary(\(vector)), vec_quantize_binary(\(reversed))),
                               strata_vec_distance_hamming(vec_quantize_binary(\(vector)), vec_quantize_binary(\(reversed)))
                        """
                ) { row in [row[0] as Double?, (row[1] as Int?).map(Double.init)] }
                try require(hamming?[0] != nil && hamming?[0] == hamming?[1], "hamming: sqlite-vec and ours \(String(describing: hamming))")
            }
            // sqlite-vec's int8 layout is Int8Vector's values alone.
            let int8 = Int8Vector(quantizing: ours)
            let int8Length: Int? = try db.query(literal: "SELECT vec_length(vec_int8(\(int8.sqliteVecBlob)))")
            #expect(int8Length == 3)
        }
    }
}
#endif
