import Foundation
import CoreStoreStorage

/// Decides, without writing anything, whether a directory may be opened as an LMDB
/// environment. `mdb_env_open` creates `lock.mdb` and may initialise `data.mdb` before it
/// notices a foreign file, so foreign contents are refused here first.
enum LMDBDirectoryCheck {
    /// The data file inside an environment directory.
    static let dataFileName = "data.mdb"
    /// The lock file inside an environment directory.
    static let lockFileName = "lock.mdb"

    /// What the directory holds.
    enum Contents: Equatable {
        /// Nothing there yet (no directory, an empty one, or only a lock file): LMDB creates it.
        case absent
        /// A data file that starts with LMDB's meta page.
        case environment
    }

    /// The magic number of an LMDB meta page (`MDB_MAGIC`).
    private static let magic: UInt32 = 0xBEEF_C0DE
    /// The data file format this library reads (`MDB_DATA_VERSION` of LMDB 0.9).
    private static let dataVersion: UInt32 = 1

    /// Inspects `directory`. Throws ``StorageError/incompatibleStore(path:reason:)`` when it is a
    /// file, holds other files but no `data.mdb`, or holds a `data.mdb` whose first meta page is
    /// not LMDB's (checked for 64-bit builds: the page header is 16 bytes, the magic and version
    /// follow, the page size is at byte 40). An empty `data.mdb` is what an interrupted creation
    /// leaves; LMDB initialises it.
    static func inspect(_ directory: URL) throws -> Contents {
        let path = directory.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return .absent }
        guard isDirectory.boolValue else {
            throw StorageError.incompatibleStore(path: path, reason: "it is a file, not an LMDB environment directory")
        }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw StorageError.incompatibleStore(path: path, reason: "the directory cannot be listed (\(error.localizedDescription))")
        }
        guard entries.contains(dataFileName) else {
            let others = entries.filter { $0 != lockFileName }
            guard others.isEmpty else {
                throw StorageError.incompatibleStore(path: path, reason: "the directory holds other files and no LMDB data file (\(dataFileName))")
            }
            return .absent
        }
        try checkDataFile(directory.appendingPathComponent(dataFileName, isDirectory: false))
        return .environment
    }

    private static func checkDataFile(_ url: URL) throws {
        let path = url.path
        let size: Int
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
                throw StorageError.incompatibleStore(path: path, reason: "\(dataFileName) is not a regular file")
            }
            size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.incompatibleStore(path: path, reason: "\(dataFileName) cannot be read (\(error.localizedDescription))")
        }
        if size == 0 { return }
        let header: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            header = try handle.read(upToCount: 48) ?? Data()
        } catch {
            throw StorageError.incompatibleStore(path: path, reason: "\(dataFileName) cannot be read (\(error.localizedDescription))")
        }
        guard header.count >= 48 else {
            throw StorageError.incompatibleStore(path: path, reason: "\(dataFileName) is too short (\(size) bytes) to be an LMDB data file")
        }
        let bytes = [UInt8](header)
        func word(_ offset: Int) -> UInt32 {
            (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
        }
        guard word(16) == magic else {
            throw StorageError.incompatibleStore(path: path, reason: "\(dataFileName) is not an LMDB data file (no LMDB meta page)")
        }
        guard word(20) == dataVersion else {
            throw StorageError.incompatibleStore(path: path, reason: "\(dataFileName) has LMDB data format \(word(20)); this library reads format \(dataVersion)")
        }
        let pageSize = Int(word(40))
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else {
            throw StorageError.incompatibleStore(path: path, reason: "\(dataFileName) records an impossible page size (\(pageSize))")
        }
        guard size >= 2 * pageSize else {
            throw StorageError.incompatibleStore(path: path, reason: "\(dataFileName) is truncated (\(size) bytes, less than its two meta pages)")
        }
    }
}
