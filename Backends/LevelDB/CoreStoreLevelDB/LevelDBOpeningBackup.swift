import Foundation
import CoreStoreStorage
#if canImport(Glibc)
import Glibc
#endif

/// Hard links to every file of a LevelDB database, taken before opening it, so that an open
/// that fails leaves the files exactly as they were.
///
/// `leveldb_open` replays the log into a new table, writes a new manifest, points `CURRENT` at
/// it and rotates `LOG` before it reports damage it finds later (in a table, say). LevelDB never
/// changes an existing file in place (it writes new files and renames), so links to the old
/// files keep their contents; when the open fails (or the first reads of the store that opened
/// it, see `OrderedKeyValueStore.open(confirmingWith:)`), the directory is put back from them. The
/// links live in a subdirectory that LevelDB ignores and that is removed after every open; one
/// left by a process that died while opening is removed too, since LevelDB's own recovery left
/// a valid database.
struct LevelDBOpeningBackup {
    /// The subdirectory holding the links.
    static let directoryName = ".corestore-opening"

    let database: URL
    let backup: URL
    private let names: [String]

    /// Links every regular file of `database`.
    init(database: URL) throws {
        self.database = database
        backup = database.appendingPathComponent(Self.directoryName, isDirectory: true)
        let manager = FileManager.default
        try? manager.removeItem(at: backup)
        do {
            try PrivateFiles.createDirectory(backup)
            var names: [String] = []
            for name in try manager.contentsOfDirectory(atPath: database.path) where name != Self.directoryName {
                let source = database.appendingPathComponent(name)
                guard (try? manager.attributesOfItem(atPath: source.path)[.type] as? FileAttributeType) == .typeRegular else { continue }
                guard link(source.path, backup.appendingPathComponent(name).path) == 0 else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "link \(name): \(String(cString: strerror(errno)))"])
                }
                names.append(name)
            }
            self.names = names
        } catch {
            try? manager.removeItem(at: backup)
            throw StorageError.engine(code: Int(EIO), message: "cannot keep the files of \(database.path) while opening it: \(error.localizedDescription)")
        }
    }

    /// The open succeeded: drops the links.
    func discard() {
        try? FileManager.default.removeItem(at: backup)
    }

    /// The open failed: puts every file back, with the database's lock held; when another
    /// process holds the lock (it opened the database meanwhile), drops the links instead.
    func restoreUnlessInUse() throws {
        guard let lock = try LevelDBProcessLock(directory: database) else {
            discard()
            return
        }
        defer { lock.release() }
        try restore()
    }

    /// The open failed: removes what it wrote and puts every file back.
    func restore() throws {
        let manager = FileManager.default
        do {
            for name in try manager.contentsOfDirectory(atPath: database.path) where name != Self.directoryName {
                let file = database.appendingPathComponent(name)
                if (try? manager.attributesOfItem(atPath: file.path)[.type] as? FileAttributeType) == .typeRegular {
                    try manager.removeItem(at: file)
                }
            }
            for name in names {
                guard rename(backup.appendingPathComponent(name).path, database.appendingPathComponent(name).path) == 0 else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "rename \(name): \(String(cString: strerror(errno)))"])
                }
            }
            try manager.removeItem(at: backup)
        } catch {
            throw StorageError.engine(code: Int(EIO), message: "opening \(database.path) failed and its files could not be put back; the originals are in \(backup.path): \(error.localizedDescription)")
        }
    }
}
