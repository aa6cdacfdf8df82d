import CoreStoreConformance
import Foundation

/// A model of what a file system keeps through a power cut, fed with a ``PowerCutJournal`` one
/// operation at a time, that can write out the files as a cut at the current moment would leave
/// them.
///
/// The model is the one ext4 and XFS give (and the one SQLite's, LevelDB's and LMDB's own
/// durability arguments assume):
/// - a file's bytes written before its last successful `fsync`/`fdatasync` are on disk;
/// - names (creations, renames, unlinks, directories) change in the order they were made, and
///   every sync of anything makes all earlier name changes durable (it commits the journal);
/// - anything later may or may not have reached the disk: none of it, a prefix of it in order,
///   or any subset of its 4 KiB pieces in any order (``Unsynced``).
struct PowerCutFileSystem {
    /// What happens to the writes and name changes made since the last sync.
    enum Unsynced: String, CaseIterable {
        /// All lost.
        case dropped
        /// A prefix of them reached the disk, in order.
        case prefix
        /// Any subset of their 4 KiB pieces reached the disk.
        case subset
    }

    /// The size of the pieces a write may be torn into.
    static let pieceSize = 4096

    private enum Pending {
        case write(offset: Int, bytes: Range<Int>)
        case truncate(size: Int)
    }

    private struct File {
        var durable: [UInt8]
        var pending: [Pending] = []
    }

    private enum NameChange {
        case create(path: String, file: Int)
        case rename(from: String, to: String)
        case unlink(path: String)
        case makeDirectory(path: String)
        case removeDirectory(path: String)
    }

    private let journalBytes: [UInt8]
    private let root: String
    private var files: [File] = []
    private var names: [String: Int] = [:]
    private var inodes: [UInt64: Int] = [:]
    private let baseNames: [String: Int]
    private let baseDirectories: Set<String>
    private var nameChanges: [NameChange] = []
    private var durableNameChanges = 0

    /// The files of a directory before the journaled process ran: all of them durable.
    struct Base {
        /// The directory's standardized path; journal paths start with it.
        let root: String
        fileprivate var files: [String: [UInt8]] = [:]
        fileprivate var directories: Set<String>

        /// Reads everything under `root` now.
        init(directory root: URL) throws {
            self.root = root.standardizedFileURL.path
            directories = [self.root]
            let manager = FileManager.default
            guard let walker = manager.enumerator(atPath: self.root) else {
                throw TortureSetupError(message: "cannot list \(self.root)")
            }
            while let relative = walker.nextObject() as? String {
                let path = self.root + "/" + relative
                var isDirectory: ObjCBool = false
                guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
                if isDirectory.boolValue {
                    directories.insert(path)
                } else {
                    files[path] = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
                }
            }
        }
    }

    /// A model of the directory `base` describes, about to be changed by the operations of
    /// `journal`.
    init(base: Base, journal: PowerCutJournal) {
        root = base.root
        journalBytes = journal.bytes
        for (path, content) in base.files {
            names[path] = files.count
            files.append(File(durable: content))
        }
        baseNames = names
        baseDirectories = base.directories
    }

    /// Applies the next operation of the journal.
    mutating func apply(_ operation: PowerCutJournal.Operation) {
        switch operation {
        case .open(let inode, let path, _, let isDirectory):
            if isDirectory { inodes[inode] = nil; return }
            if let existing = names[path] {
                inodes[inode] = existing
            } else {
                let file = files.count
                files.append(File(durable: []))
                names[path] = file
                inodes[inode] = file
                nameChanges.append(.create(path: path, file: file))
            }
        case .write(let inode, let offset, let bytes):
            if let file = inodes[inode] { files[file].pending.append(.write(offset: offset, bytes: bytes)) }
        case .truncate(let inode, let size):
            if let file = inodes[inode] { files[file].pending.append(.truncate(size: size)) }
        case .sync(let inode):
            if let file = inodes[inode] {
                for change in files[file].pending { Self.apply(change, to: &files[file].durable, journal: journalBytes) }
                files[file].pending.removeAll()
            }
            durableNameChanges = nameChanges.count
        case .rename(let from, let to):
            names[to] = names.removeValue(forKey: from)
            nameChanges.append(.rename(from: from, to: to))
        case .unlink(let path):
            names[path] = nil
            nameChanges.append(.unlink(path: path))
        case .makeDirectory(let path):
            nameChanges.append(.makeDirectory(path: path))
        case .removeDirectory(let path):
            nameChanges.append(.removeDirectory(path: path))
        case .mark:
            break
        }
    }

    /// Writes into `directory` (which must not exist) the files as a power cut now would leave
    /// them, with `unsynced` deciding the fate of what was not synced; paths keep their place
    /// relative to the model's root. Files whose content no engine trusts after a restart
    /// (`isTransient`) are left out.
    func writeImage(to directory: URL, unsynced: Unsynced, random: inout SplitMix64, isTransient: (String) -> Bool) throws {
        let nameCount = unsynced == .dropped
            ? durableNameChanges
            : durableNameChanges + random.below(nameChanges.count - durableNameChanges + 1)
        var imageNames = baseNames
        var directories = baseDirectories
        for change in nameChanges.prefix(nameCount) {
            switch change {
            case .create(let path, let file): imageNames[path] = file
            case .rename(let from, let to):
                if let file = imageNames.removeValue(forKey: from) { imageNames[to] = file }
                if directories.remove(from) != nil { directories.insert(to) }
            case .unlink(let path): imageNames[path] = nil
            case .makeDirectory(let path): directories.insert(path)
            case .removeDirectory(let path): directories.remove(path)
            }
        }
        let manager = FileManager.default
        let target = directory.standardizedFileURL.path
        for path in directories.sorted() {
            try manager.createDirectory(atPath: target + path.dropFirst(root.count), withIntermediateDirectories: true)
        }
        for (path, file) in imageNames where !isTransient(path) {
            var content = files[file].durable
            let pending = files[file].pending
            switch unsynced {
            case .dropped:
                break
            case .prefix:
                for change in pending.prefix(random.below(pending.count + 1)) { Self.apply(change, to: &content, journal: journalBytes) }
            case .subset:
                for change in pending { applyPieces(of: change, to: &content, random: &random) }
            }
            let destination = target + path.dropFirst(root.count)
            try manager.createDirectory(atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            guard manager.createFile(atPath: destination, contents: Data(content), attributes: [.posixPermissions: 0o600]) else {
                throw TortureSetupError(message: "cannot write \(destination)")
            }
        }
    }

    /// Applies each 4 KiB piece of a write, and a truncation, with probability one half.
    private func applyPieces(of change: Pending, to content: inout [UInt8], random: inout SplitMix64) {
        guard case .write(let offset, let bytes) = change else {
            if random.oneIn(2) { Self.apply(change, to: &content, journal: journalBytes) }
            return
        }
        var start = offset
        let end = offset + bytes.count
        while start < end {
            let pieceEnd = min(end, (start / Self.pieceSize + 1) * Self.pieceSize)
            if random.oneIn(2) {
                let from = bytes.lowerBound + (start - offset)
                Self.apply(.write(offset: start, bytes: from..<(from + pieceEnd - start)), to: &content, journal: journalBytes)
            }
            start = pieceEnd
        }
    }

    private static func apply(_ change: Pending, to content: inout [UInt8], journal: [UInt8]) {
        switch change {
        case .write(let offset, let bytes):
            let end = offset + bytes.count
            if content.count < end { content.append(contentsOf: repeatElement(0, count: end - content.count)) }
            content.replaceSubrange(offset..<end, with: journal[bytes])
        case .truncate(let size):
            if content.count > size {
                content.removeSubrange(size...)
            } else {
                content.append(contentsOf: repeatElement(0, count: size - content.count))
            }
        }
    }
}
