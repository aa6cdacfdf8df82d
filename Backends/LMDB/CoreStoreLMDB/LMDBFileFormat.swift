import Foundation
import CoreStoreKeyValue
import CoreStoreStorage

/// The files of an LMDB environment: `data.mdb` proves the directory is one. `mdb_env_open`
/// creates `lock.mdb` (the reader table) and may initialise `data.mdb` before it notices a
/// foreign file, so ``checkSignature(of:)`` refuses foreign and damaged data files first
/// (`DirectoryEngineShell` calls it before opening and destroying).
///
/// `LMDBEngine` creates an empty `data.mdb` before LMDB creates `lock.mdb`, so an interrupted
/// creation leaves an empty `data.mdb` (which LMDB initialises) and never `lock.mdb` alone: a
/// directory holding `lock.mdb` and no `data.mdb` lost its data file, and is refused instead of
/// being opened as a new, empty store.
struct LMDBFileFormat: DirectoryStoreFormat {
    let storeKind = "LMDB environment"
    let signatureFileName = "data.mdb"
    let companionFileNames: Set<String> = []

    /// Deletes `data.mdb` and `lock.mdb`.
    func deleteStoreFiles(in directory: URL) throws {
        try deleteFiles(named: [signatureFileName, "lock.mdb"], in: directory)
    }

    /// The magic number of an LMDB meta page (`MDB_MAGIC`).
    private static let magic: UInt32 = 0xBEEF_C0DE
    /// The data file format this library reads (`MDB_DATA_VERSION` of LMDB 0.9).
    private static let dataVersion: UInt32 = 1

    /// Throws ``StorageError/incompatibleStore(path:reason:)`` when the first meta page of
    /// `data.mdb` is not LMDB's (checked for 64-bit builds: the page header is 16 bytes, the
    /// magic and version follow, the page size is at byte 40), or its newer meta page records a
    /// last page beyond the end of the file (truncated). An empty `data.mdb` is what an
    /// interrupted creation leaves; LMDB initialises it.
    func checkSignature(of file: URL) throws {
        let path = file.path
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        if size == 0 { return }
        let header = try readPrefix(of: file, count: 48)
        guard header.count >= 48 else {
            throw StorageError.incompatibleStore(path: path, reason: "\(signatureFileName) is too short (\(size) bytes) to be an LMDB data file")
        }
        func word(_ offset: Int) -> UInt32 {
            (0..<4).reduce(UInt32(0)) { $0 | UInt32(header[offset + $1]) << (8 * UInt32($1)) }
        }
        guard word(16) == Self.magic else {
            throw StorageError.incompatibleStore(path: path, reason: "\(signatureFileName) is not an LMDB data file (no LMDB meta page)")
        }
        guard word(20) == Self.dataVersion else {
            throw StorageError.incompatibleStore(path: path, reason: "\(signatureFileName) has LMDB data format \(word(20)); this library reads format \(Self.dataVersion)")
        }
        let pageSize = Int(word(40))
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else {
            throw StorageError.incompatibleStore(path: path, reason: "\(signatureFileName) records an impossible page size (\(pageSize))")
        }
        guard size >= 2 * pageSize else {
            throw StorageError.incompatibleStore(path: path, reason: "\(signatureFileName) is truncated (\(size) bytes, less than its two meta pages)")
        }
        try checkLastPage(file, size: size, pageSize: pageSize)
    }

    /// LMDB maps the file and trusts its meta pages: a page past the end of a truncated file is
    /// a SIGBUS, not an error. So, as `mdb_env_open` does, both meta pages must be LMDB's, and the
    /// file must reach the last page (`mm_last_pg`, at byte 136 of the meta) recorded by the newer
    /// one (larger `mm_txnid`, at byte 144) — unless every page past its end is free (recorded in
    /// the free database, whose root is at byte 80): LMDB does not write a page it allocated and
    /// freed in the same transaction, so a valid environment may end before its last page (see
    /// ``LMDBFreePages``).
    private func checkLastPage(_ file: URL, size: Int, pageSize: Int) throws {
        let path = file.path
        let pages = try readPrefix(of: file, count: 2 * pageSize)
        guard pages.count == 2 * pageSize else {
            throw StorageError.incompatibleStore(path: path, reason: "\(signatureFileName) is truncated (its meta pages cannot be read)")
        }
        func integer(_ offset: Int, bytes: Int) -> UInt64 {
            (0..<bytes).reduce(UInt64(0)) { $0 | UInt64(pages[offset + $1]) << (8 * UInt64($1)) }
        }
        var newest: (txnid: UInt64, lastPage: UInt64, freeRoot: UInt64)?
        for meta in 0..<2 {
            let base = meta * pageSize
            guard integer(base + 16, bytes: 4) == UInt64(Self.magic) else {
                throw StorageError.incompatibleStore(path: path, reason: "\(signatureFileName) is damaged (meta page \(meta) is not LMDB's)")
            }
            let txnid = integer(base + 144, bytes: 8), lastPage = integer(base + 136, bytes: 8)
            if newest.map({ txnid > $0.txnid }) ?? true { newest = (txnid, lastPage, integer(base + 80, bytes: 8)) }
        }
        let lastPage = newest?.lastPage ?? 1
        let filePages = UInt64(size / pageSize)
        if lastPage < filePages { return }
        let handle = try? FileHandle(forReadingFrom: file)
        defer { try? handle?.close() }
        guard let handle, LMDBFreePages(handle: handle, pageSize: pageSize, filePages: filePages).areAllFree(filePages...lastPage, freeDatabaseRoot: newest?.freeRoot ?? UInt64.max) else {
            throw StorageError.incompatibleStore(path: path, reason: "\(signatureFileName) is truncated (\(size) bytes; its last page \(lastPage) ends past the end)")
        }
    }
}
