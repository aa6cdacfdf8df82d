import Foundation
import CLMDB
import CoreStoreKeyValue
import CoreStoreStorage

/// One open `MDB_env` with its main database handle, the connection ``LMDBEngine``'s
/// `DirectoryEngineShell` keeps: transactions use it inside `shell.transaction`, map resizes
/// inside `shell.exclusive`, and the shell calls ``close()`` once, after every transaction.
final class LMDBEnvironment: KeyValueEngineConnection, @unchecked Sendable {
    let handle: OpaquePointer
    let database: MDB_dbi
    let maximumKeySize: Int
    private let path: String

    /// Opens the environment in `directoryURL` (which must exist and have passed
    /// ``LMDBFileFormat``'s check). Registers the path so that a second open in the process throws.
    init(directoryURL: URL, flags: UInt32, mapSize: Int) throws {
        let path = directoryURL.resolvingSymlinksInPath().path
        guard OpenStorePaths.shared.insert(path) else {
            throw StorageError.engine(code: Int(EBUSY), message: "the LMDB environment \(path) is in use by another LMDBEngine in this process; LMDB allows one open handle per environment and process")
        }
        var environment: OpaquePointer?
        var code = mdb_env_create(&environment)
        guard code == MDB_SUCCESS, let environment else {
            OpenStorePaths.shared.remove(path)
            throw LMDBStatus.error(code, "mdb_env_create")
        }
        func fail(_ code: Int32, _ context: String) -> Error {
            mdb_env_close(environment)
            OpenStorePaths.shared.remove(path)
            if code == MDB_INVALID || code == MDB_VERSION_MISMATCH {
                return StorageError.incompatibleStore(path: path, reason: "LMDB refused it: \(String(cString: mdb_strerror(code)))")
            }
            return LMDBStatus.error(code, context)
        }
        code = mdb_env_set_mapsize(environment, mapSize)
        guard code == MDB_SUCCESS else { throw fail(code, "mdb_env_set_mapsize") }
        code = mdb_env_open(environment, path, flags, mode_t(PrivateFiles.filePermissions))
        guard code == MDB_SUCCESS else { throw fail(code, "mdb_env_open \(path)") }
        var dead: Int32 = 0
        code = mdb_reader_check(environment, &dead)
        guard code == MDB_SUCCESS else { throw fail(code, "mdb_reader_check") }
        var transaction: OpaquePointer?
        code = mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &transaction)
        guard code == MDB_SUCCESS else { throw fail(code, "mdb_txn_begin") }
        var database: MDB_dbi = 0
        code = mdb_dbi_open(transaction, nil, 0, &database)
        guard code == MDB_SUCCESS else {
            mdb_txn_abort(transaction)
            throw fail(code, "mdb_dbi_open")
        }
        code = mdb_txn_commit(transaction)
        guard code == MDB_SUCCESS else { throw fail(code, "mdb_txn_commit") }
        self.handle = environment
        self.database = database
        self.maximumKeySize = Int(mdb_env_get_maxkeysize(environment))
        self.path = path
    }

    /// The size of the map, from `mdb_env_info`.
    var mapSize: Int {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        return info.me_mapsize
    }

    func reader(_ transaction: OpaquePointer) -> LMDBReader {
        LMDBReader(transaction: transaction, database: database, maximumKeySize: maximumKeySize)
    }

    func writer(_ transaction: OpaquePointer) -> LMDBWriter {
        LMDBWriter(transaction: transaction, database: database, maximumKeySize: maximumKeySize)
    }

    /// Doubles the map (capped at `maximum`). Throws `.engine(code: MDB_MAP_FULL)` when the map
    /// already has the maximum size.
    /// REQUIRES: no transaction is active (the caller is inside `shell.exclusive`).
    func growMap(maximum: Int) throws {
        let current = mapSize
        guard current < maximum else {
            throw StorageError.engine(code: Int(MDB_MAP_FULL), message: "the LMDB environment \(path) is full: the write needs more than the maximum map size of \(maximum) bytes; nothing was written")
        }
        let grown = current > maximum / 2 ? maximum : current * 2
        try LMDBStatus.check(mdb_env_set_mapsize(handle, grown), "mdb_env_set_mapsize")
    }

    /// Adopts the larger map another process wrote (`MDB_MAP_RESIZED`).
    /// REQUIRES: no transaction is active (the caller is inside `shell.exclusive`).
    func adoptMapSizeOfOtherProcess() throws {
        try LMDBStatus.check(mdb_env_set_mapsize(handle, 0), "mdb_env_set_mapsize")
    }

    /// Closes the environment and releases the path.
    /// REQUIRES: no transaction is active; called once.
    func close() {
        mdb_env_close(handle)
        OpenStorePaths.shared.remove(path)
    }
}
