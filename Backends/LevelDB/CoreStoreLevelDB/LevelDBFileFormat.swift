import Foundation
import CLevelDB
import CoreStoreKeyValue
import CoreStoreStorage

/// The files of a LevelDB database: `CURRENT` proves the directory is one; `LOCK` and `LOG`
/// (and `LOG.old`) come first. `leveldb_open` creates `LOCK` and `LOG` (renaming an existing
/// `LOG`) before it reads the database, so ``checkSignature(of:)`` refuses foreign contents
/// first (`DirectoryEngineShell` calls it before opening and destroying).
struct LevelDBFileFormat: DirectoryStoreFormat {
    let storeKind = "LevelDB database"
    let signatureFileName = "CURRENT"
    let companionFileNames: Set<String> = ["LOCK", "LOG", "LOG.old"]

    /// Throws ``StorageError/incompatibleStore(path:reason:)`` unless `CURRENT` names a manifest
    /// (`MANIFEST-<number>`) whose first log record starts a version edit with a comparator
    /// name. Deeper damage is found by `leveldb_open` with `paranoid_checks`.
    func checkSignature(of file: URL) throws {
        let directory = file.deletingLastPathComponent()
        let path = directory.path
        let current = try readPrefix(of: file, count: 256)
        guard let text = String(bytes: current, encoding: .utf8), text.hasSuffix("\n") else {
            throw StorageError.incompatibleStore(path: path, reason: "its CURRENT file does not name a LevelDB manifest")
        }
        let name = String(text.dropLast())
        let number = name.dropFirst("MANIFEST-".count)
        guard name.hasPrefix("MANIFEST-"), !number.isEmpty, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber) else {
            throw StorageError.incompatibleStore(path: path, reason: "its CURRENT file does not name a LevelDB manifest")
        }
        let manifestURL = directory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: manifestURL.path) else {
            throw StorageError.incompatibleStore(path: path, reason: "the manifest \(name) named by CURRENT is missing")
        }
        // A log record: checksum (4), length (2, little-endian), type (1: full, 2: first), then
        // a VersionEdit whose first field is the comparator name (tag 1).
        let record = try readPrefix(of: manifestURL, count: 8)
        guard record.count == 8,
              Int(record[4]) | Int(record[5]) << 8 > 0,
              record[6] == 1 || record[6] == 2,
              record[7] == 1 else {
            throw StorageError.incompatibleStore(path: path, reason: "the manifest \(name) is not a LevelDB manifest")
        }
    }

    /// `leveldb_destroy_db`: LevelDB's own files (tables, logs, manifests, `CURRENT`, `LOCK`,
    /// `LOG`), whatever their numbers.
    func deleteStoreFiles(in directory: URL) throws {
        let options = leveldb_options_create()
        defer { leveldb_options_destroy(options) }
        let (_, message) = LevelDBStatus.capture { leveldb_destroy_db(options, directory.path, $0) }
        if let message { throw LevelDBStatus.explain(message, path: directory.path, context: "leveldb_destroy_db \(directory.path)") }
    }
}
