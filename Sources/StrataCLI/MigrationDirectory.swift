import Foundation
import Strata

/// The `NNN_name.sql` files of a migration directory, checked to form versions 1, 2, ... N.
struct MigrationDirectory {
    /// One migration file and its SQL.
    struct File {
        let version: UInt64
        let name: String
        let sql: String
    }

    /// The files in version order; `files[i].version == i + 1`.
    let files: [File]

    /// The newest version the files reach (0 for an empty directory).
    var latestVersion: UInt64 { files.last?.version ?? 0 }

    /// The file for `version`, if there is one.
    func file(for version: UInt64) -> File? {
        guard version >= 1, version <= latestVersion else { return nil }
        return files[Int(version - 1)]
    }

    /// Reads `path`, refusing a missing directory, a badly named `.sql` file, version 0, a
    /// duplicate number or a gap; other files (a README, ...) are ignored.
    /// - Throws: `CLIError` naming the problem and the files involved.
    init(path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIError("no such migration directory: \(path)")
        }
        guard isDirectory.boolValue else { throw CLIError("\(path) is not a directory") }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw CLIError("cannot list migration directory \(path): permission denied or unreadable")
        }
        var numbered: [(version: UInt64, name: String)] = []
        for name in names where name.lowercased().hasSuffix(".sql") {
            guard let version = Self.version(ofFileNamed: name) else {
                throw CLIError("migration file \(name) is not named NNN_name.sql")
            }
            guard version > 0 else { throw CLIError("migration file \(name) has version 0; versions start at 1") }
            numbered.append((version, name))
        }
        numbered.sort { ($0.version, $0.name) < ($1.version, $1.name) }
        var files: [File] = []
        for (position, entry) in numbered.enumerated() {
            let expected = UInt64(position + 1)
            if entry.version < expected {
                throw CLIError("duplicate migration version \(entry.version): \(numbered[position - 1].name) and \(entry.name)")
            }
            if entry.version > expected {
                let after = position > 0 ? " between \(numbered[position - 1].name) and \(entry.name)" : " before \(entry.name)"
                throw CLIError("gap in migrations: no version \(expected)\(after)")
            }
            let filePath = (path as NSString).appendingPathComponent(entry.name)
            guard let data = FileManager.default.contents(atPath: filePath) else {
                throw CLIError("cannot read migration file \(entry.name)")
            }
            guard let sql = String(data: data, encoding: .utf8) else {
                throw CLIError("migration file \(entry.name) is not UTF-8 text")
            }
            files.append(File(version: entry.version, name: entry.name, sql: sql))
        }
        self.files = files
    }

    /// A migrator with each file registered under its name without `.sql`, in version order.
    var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for file in files { migrator.registerMigration(Self.identifier(ofFileNamed: file.name), sql: file.sql) }
        return migrator
    }

    /// The name a file's migration is recorded under in `strata_migrations`: its name without `.sql`.
    static func identifier(ofFileNamed name: String) -> String {
        String(Substring(name.unicodeScalars.dropLast(4)))
    }

    /// The number before the first `_` of `NNN_name.sql`, or nil when the name has another shape.
    static func version(ofFileNamed name: String) -> UInt64? {
        let stem = name.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_") else { return nil }
        let digits = stem[..<underscore]
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            stem.index(after: underscore) < stem.endIndex
        else { return nil }
        return UInt64(digits)
    }
}
