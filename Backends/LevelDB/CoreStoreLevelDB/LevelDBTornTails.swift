import Foundation
import CoreStoreStorage
#if canImport(Glibc)
import Glibc
#endif

/// Before LevelDB opens an existing database, cuts the torn end off its newest write-ahead log
/// and off its manifest, as a power cut can leave them (see ``LevelDBLogTail``).
///
/// LevelDB opened with `paranoid_checks` refuses a log whose unsynced end reached the disk in
/// part. Every record before the damage is kept: with `.full` durability each was synced before
/// the next was written, so only the interrupted one is dropped, and it was never acknowledged.
/// Damage followed by intact records is not a torn end:
/// - in the manifest, and in the log of a `.full` store, it is refused
///   (``StorageError/incompatibleStore(path:reason:)``), with nothing changed;
/// - in the log of a `.normal` store, whose writes are never synced, a power cut can leave
///   exactly that, so the log is cut at the damage: the store keeps a prefix of its commits and
///   loses a tail, as `.normal` allows, instead of replaying later commits without earlier ones.
enum LevelDBTornTails {
    /// Checks and repairs the newest log and the manifest `CURRENT` names, in `directory`.
    /// `logWritesAreSynced`: the store commits with `.full` durability.
    static func repair(in directory: URL, logWritesAreSynced: Bool) throws {
        let manager = FileManager.default
        let current = try String(contentsOf: directory.appendingPathComponent("CURRENT"), encoding: .utf8)
        let manifest = current.trimmingCharacters(in: .newlines)
        try repair(directory.appendingPathComponent(manifest), directory: directory, cutAtDamage: false)
        let logs = try manager.contentsOfDirectory(atPath: directory.path).compactMap { name -> (Int, String)? in
            guard name.hasSuffix(".log"), let number = Int(name.dropLast(4)) else { return nil }
            return (number, name)
        }
        if let newest = logs.max(by: { $0.0 < $1.0 }) {
            try repair(directory.appendingPathComponent(newest.1), directory: directory, cutAtDamage: !logWritesAreSynced)
        }
    }

    private static func repair(_ file: URL, directory: URL, cutAtDamage: Bool) throws {
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        let bytes = [UInt8](try Data(contentsOf: file))
        switch LevelDBLogTail.examine(bytes) {
        case .intact:
            return
        case .tornTail(let intactLength, _):
            try truncate(file, to: intactLength)
        case .damaged(let intactLength, let damageOffset):
            guard cutAtDamage else {
                throw StorageError.incompatibleStore(
                    path: directory.path,
                    reason: "its file \(file.lastPathComponent) is damaged at byte \(damageOffset) and intact records follow, which no interrupted write leaves"
                )
            }
            try truncate(file, to: intactLength)
        }
    }

    /// Replaces `file` with its first `length` bytes, as a new file renamed over it (so the
    /// original stays in `LevelDBOpeningBackup`'s link), synced with its directory.
    private static func truncate(_ file: URL, to length: Int) throws {
        let temporary = file.deletingLastPathComponent().appendingPathComponent(file.lastPathComponent + ".corestore-repair")
        do {
            let bytes = try Data(contentsOf: file).prefix(length)
            _ = try? FileManager.default.removeItem(at: temporary)
            try PrivateFiles.createFile(atPath: temporary.path)
            let handle = try FileHandle(forWritingTo: temporary)
            try handle.write(contentsOf: bytes)
            try handle.synchronize()
            try handle.close()
            guard rename(temporary.path, file.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
            }
            let directory = Glibc.open(file.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if directory >= 0 {
                _ = fsync(directory)
                _ = Glibc.close(directory)
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw StorageError.engine(code: Int(EIO), message: "cannot cut the torn end of \(file.path): \(error.localizedDescription)")
        }
    }
}
