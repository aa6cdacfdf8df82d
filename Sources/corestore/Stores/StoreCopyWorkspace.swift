import Foundation
import CoreStoreSQLite
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
            Self.recover(parent.appendingPathComponent(name, isDirectory: true), target: target)
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

    /// The parts of an old target set aside during a move, by name in the workspace, with the
    /// suffix they have beside the target.
    private static let setAsideParts = [("replaced", "")] + SQLiteStore.sideFileSuffixes.map { ("replaced" + $0, $0) }

    /// Moves the closed store at `url` to `target`, replacing what is there. The old store's
    /// parts that must not stay beside the new one (a directory, which cannot be renamed over;
    /// a SQLite file's log, shared memory and journal) are first moved into the workspace, and
    /// moved back if the move fails, or by the next copy to `target` if this one is killed.
    func moveStore(at url: URL, backend: StoreBackend, to target: URL) throws {
        let fm = FileManager.default
        if backend == .sqlite {
            // A closed store has checkpointed its log; a log with content would be lost.
            let wal = (try? fm.attributesOfItem(atPath: url.path + "-wal")[.size] as? NSNumber)?.int64Value ?? 0
            guard wal == 0 else { throw StoreToolError("the copy's SQLite log was not checkpointed; \(target.path) was left as it was") }
        }
        var setAside: [(original: URL, aside: URL)] = []
        do {
            for (name, suffix) in Self.setAsideParts {
                let original = URL(fileURLWithPath: target.path + suffix)
                var isDirectory: ObjCBool = false
                guard fm.fileExists(atPath: original.path, isDirectory: &isDirectory) else { continue }
                // A SQLite file is renamed over in one step; everything else is set aside.
                if suffix.isEmpty && backend == .sqlite && !isDirectory.boolValue { continue }
                let aside = directory.appendingPathComponent(name)
                try rename(original, aside)
                setAside.append((original, aside))
            }
            try rename(url, target)
        } catch {
            for part in setAside.reversed() { try? rename(part.aside, part.original) }
            throw error
        }
        syncDirectory(target.deletingLastPathComponent())
    }

    /// Cleans up the workspace of a copy to `target` that was killed: when its new store is still
    /// in it, the move never happened, so the old store's parts it set aside go back.
    private static func recover(_ workspace: URL, target: URL) {
        let fm = FileManager.default
        let names = (try? fm.contentsOfDirectory(atPath: workspace.path)) ?? []
        if names.contains(where: { $0.hasPrefix("store.") }) {
            for (name, suffix) in setAsideParts where names.contains(name) {
                let original = target.path + suffix
                if !fm.fileExists(atPath: original) { _ = Glibc.rename(workspace.appendingPathComponent(name).path, original) }
            }
        }
        try? fm.removeItem(at: workspace)
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
