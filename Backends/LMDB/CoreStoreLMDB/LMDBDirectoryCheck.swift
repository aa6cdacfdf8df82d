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
    /// follow, the page size is at byte 40), or whose newer meta page records a last page beyond
    /// the end of the file (truncated). An empty `data.mdb` is what an interrupted creation
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
        try checkLastPage(url, size: size, pageSize: pageSize)
    }

    /// LMDB maps the file and trusts its meta pages: a page past the end of a truncated file is
    /// a SIGBUS, not an error. So, as `mdb_env_open` does, both meta pages must be LMDB's, and the
    /// file must reach the last page (`mm_last_pg`, at byte 136 of the meta) recorded by the newer
    /// one (larger `mm_txnid`, at byte 144).
    private static func checkLastPage(_ url: URL, size: Int, pageSize: Int) throws {
        let path = url.path
        let pages: [UInt8]
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            pages = [UInt8](try handle.read(upToCount: 2 * pageSize) ?? Data())
        } catch {
            throw StorageError.incompatibleStore(path: path, reason: "\(dataFileName) cannot be read (\(error.localizedDescription))")
        }
        guard pages.count == 2 * pageSize else {
            throw StorageError.incompatibleStore(path: path, reason: "\(dataFileName) is truncated (its meta pages cannot be read)")
        }
        func integer(_ offset: Int, bytes: Int) -> UInt64 {
            (0..<bytes).reduce(UInt64(0)) { $0 | UInt64(pages[offset + $1]) << (8 * UInt64($1)) }
        }
        var newest: (txnid: UInt64, lastPage: UInt64)?
        for meta in 0..<2 {
            let base = meta * pageSize
            guard integer(base + 16, bytes: 4) == UInt64(magic) else {
                throw StorageError.incompatibleStore(path: path, reason: "\(dataFileName) is damaged (meta page \(meta) is not LMDB's)")
            }
            let txnid = integer(base + 144, bytes: 8), lastPage = integer(base + 136, bytes: 8)
            if newest.map({ txnid > $0.txnid }) ?? true { newest = (txnid, lastPage) }
        }
        let lastPage = newest?.lastPage ?? 1
        let (pagesNeeded, overflow) = lastPage.addingReportingOverflow(1)
        let (bytesNeeded, overflow2) = pagesNeeded.multipliedReportingOverflow(by: UInt64(pageSize))
        guard !overflow, !overflow2, bytesNeeded <= UInt64(size) else {
            throw StorageError.incompatibleStore(path: path, reason: "\(dataFileName) is truncated (\(size) bytes; its last page \(lastPage) ends past the end)")
        }
    }
}
