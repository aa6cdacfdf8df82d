import Foundation
import CoreStoreStorage

/// Decides, without writing anything, whether a directory may be opened as a LevelDB database.
/// `leveldb_open` creates `LOCK` and `LOG` (renaming an existing `LOG`) before it reads the
/// database, so foreign contents are refused here first.
enum LevelDBDirectoryCheck {
    /// What the directory holds.
    enum Contents: Equatable {
        /// No directory, an empty one, or only the `LOCK`/`LOG` files an interrupted creation
        /// leaves: opened with `create_if_missing`.
        case absent
        /// A `CURRENT` file naming a manifest that starts like a LevelDB manifest.
        case database
    }

    /// Files LevelDB writes before `CURRENT` when it creates a database.
    private static let creationLeftovers: Set<String> = ["LOCK", "LOG", "LOG.old"]

    /// Inspects `directory`. Throws ``StorageError/incompatibleStore(path:reason:)`` when it is a
    /// file, holds other files but no `CURRENT`, or its `CURRENT` does not name a manifest
    /// (`MANIFEST-<number>`) whose first log record starts a version edit with a comparator
    /// name. Deeper damage is found by `leveldb_open` with `paranoid_checks`.
    static func inspect(_ directory: URL) throws -> Contents {
        let path = directory.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return .absent }
        guard isDirectory.boolValue else {
            throw StorageError.incompatibleStore(path: path, reason: "it is a file, not a LevelDB database directory")
        }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw StorageError.incompatibleStore(path: path, reason: "the directory cannot be listed (\(error.localizedDescription))")
        }
        guard entries.contains("CURRENT") else {
            guard entries.allSatisfy(creationLeftovers.contains) else {
                throw StorageError.incompatibleStore(path: path, reason: "the directory holds other files and no LevelDB CURRENT file")
            }
            return .absent
        }
        let current = try readPrefix(directory.appendingPathComponent("CURRENT"), count: 256, directory: path)
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
        let record = try readPrefix(manifestURL, count: 8, directory: path)
        guard record.count == 8,
              Int(record[4]) | Int(record[5]) << 8 > 0,
              record[6] == 1 || record[6] == 2,
              record[7] == 1 else {
            throw StorageError.incompatibleStore(path: path, reason: "the manifest \(name) is not a LevelDB manifest")
        }
        return .database
    }

    private static func readPrefix(_ url: URL, count: Int, directory: String) throws -> [UInt8] {
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            return [UInt8](try handle.read(upToCount: count) ?? Data())
        } catch {
            throw StorageError.incompatibleStore(path: directory, reason: "\(url.lastPathComponent) cannot be read (\(error.localizedDescription))")
        }
    }
}
