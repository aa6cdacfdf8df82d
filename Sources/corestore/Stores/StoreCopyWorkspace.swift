import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The temporary directory beside a copy's target where `corestore copy` writes the new store,
/// and the move that puts the finished store in place. Being on the target's file system, the
/// move is a `rename`: the target is the old store or the whole new one, never part of it.
struct StoreCopyWorkspace {
    let directory: URL

    /// A new, empty directory `.<target name>.corestore-copy-<uuid>` beside `target`, after
    /// removing those of earlier copies to `target` that were killed.
    init(beside target: URL) throws {
        let parent = target.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: parent.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StoreToolError("cannot copy to \(target.path): the directory \(parent.path) does not exist")
        }
        let prefix = ".\(target.lastPathComponent).corestore-copy-"
        // What a copy to the same target that was killed left behind.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? [] where name.hasPrefix(prefix) {
            try? FileManager.default.removeItem(at: parent.appendingPathComponent(name))
        }
        directory = parent.appendingPathComponent(prefix + UUID().uuidString, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        } catch {
            throw StoreToolError("cannot copy to \(target.path): cannot create \(directory.path) (\(error.localizedDescription))")
        }
    }

    /// Where the new store of `backend` is written.
    func storeURL(for backend: StoreBackend) -> URL {
        directory.appendingPathComponent("store.\(backend.rawValue)", isDirectory: backend != .sqlite)
    }

    /// Removes the workspace and whatever is left in it.
    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Moves the closed store at `url` to `target`, replacing what is there.
    func moveStore(at url: URL, backend: StoreBackend, to target: URL) throws {
        let fm = FileManager.default
        if backend == .sqlite {
            // A closed store has checkpointed its log; a log with content would be lost.
            let wal = (try? fm.attributesOfItem(atPath: url.path + "-wal")[.size] as? NSNumber)?.int64Value ?? 0
            guard wal == 0 else { throw StoreToolError("the copy's SQLite log was not checkpointed; \(target.path) was left as it was") }
        }
        var replaced: URL?
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: target.path, isDirectory: &isDirectory) {
            if isDirectory.boolValue || backend != .sqlite {
                // A directory cannot be renamed over: set the old store aside first.
                let aside = directory.appendingPathComponent("replaced", isDirectory: isDirectory.boolValue)
                try rename(target, aside)
                replaced = aside
            }
            // The old database's log and shared memory must not be read with the new file.
            for suffix in ["-wal", "-shm", "-journal"] { try? fm.removeItem(atPath: target.path + suffix) }
        }
        do {
            try rename(url, target)
        } catch {
            if let replaced { try? rename(replaced, target) }
            throw error
        }
        syncDirectory(target.deletingLastPathComponent())
    }

    private func rename(_ from: URL, _ to: URL) throws {
        guard Glibc.rename(from.path, to.path) == 0 else {
            throw StoreToolError("cannot move \(from.path) to \(to.path): \(String(cString: strerror(errno)))")
        }
    }

    /// Makes the rename durable.
    private func syncDirectory(_ url: URL) {
        let fd = open(url.path, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        _ = close(fd)
    }
}
