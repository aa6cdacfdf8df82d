import Foundation
import Synchronization
import CoreStoreKeyValue
import CoreStoreStorage

/// A sorted key-value engine kept as an append-only log: the store is a directory holding one
/// file, `log`. Every write appends its puts and deletes and a commit marker, and syncs; opening
/// replays the complete commits into memory and cuts off a torn tail (a crash in the middle of
/// an append), so the store always opens as of its last returned write.
///
/// Only the log format is this engine's own. `DirectoryEngineShell` runs open, close and
/// destroy and refuses a directory that is not an append log before anything is written;
/// `SortedKeyMap` holds the pairs and is the snapshot reads see; `BufferedKeyValueWriter` lets
/// a write read its own puts. The log is never compacted, so it suits small data.
public final class AppendLogEngine: OrderedKeyValueStore, @unchecked Sendable {
    private let shell: DirectoryEngineShell<AppendLog>

    /// An engine for the store in `directoryURL`; nothing is touched before ``open()``.
    public init(directoryURL: URL) {
        shell = DirectoryEngineShell(directoryURL: directoryURL, engineName: "AppendLogEngine", format: AppendLogFormat())
    }

    /// `AppendLogEngine(<path>)`.
    public var storeDescription: String { shell.storeDescription }

    /// `true`: a write returns after its commit is synced.
    public var isDurable: Bool { true }

    /// Opens the store, creating an empty log in a new directory, replaying the log otherwise.
    public func open() throws {
        try open(creatingWhenAbsent: true)
    }

    /// Opens the store only if its directory holds a log, then runs `check`; nothing is created
    /// (the store tools open what they read this way).
    public func openExisting(confirmingWith check: () throws -> Void) throws {
        try openThenConfirm({ try open(creatingWhenAbsent: false) }, with: check)
    }

    private func open(creatingWhenAbsent: Bool) throws {
        try shell.open(creatingWhenAbsent: creatingWhenAbsent) { creating in
            try AppendLog(shell.directoryURL.appendingPathComponent(AppendLogFormat.fileName), creating: creating)
        }
    }

    /// Runs `body` on the pairs committed when it starts.
    public func read<T>(_ body: (any KeyValueReader) throws -> T) throws -> T {
        try body(try shell.transaction { $0.pairs.withLock { $0 } })
    }

    /// Runs `body` over the committed pairs and its own writes, then appends them as one commit.
    public func write<T>(_ body: (any KeyValueWriter) throws -> T) throws -> T {
        try shell.transaction { log in
            let writer = BufferedKeyValueWriter(base: log.pairs.withLock { $0 })
            let result = try body(writer)
            try log.append(writer)
            return result
        }
    }

    /// Closes the log file; later calls throw `notOpen` until ``open()``.
    public func close() { shell.close() }

    /// Closes the store and deletes the log and its directory.
    public func destroy() throws { try shell.destroy() }
}

/// The files of a store: `log`, which starts with `CSLOG001`, and `log.new`, the new log an
/// interrupted creation may leave.
struct AppendLogFormat: DirectoryStoreFormat {
    static let fileName = "log"
    static let magic = Array("CSLOG001".utf8)
    let storeKind = "append log"
    let signatureFileName = fileName
    let companionFileNames: Set<String> = ["log.new"]

    func checkSignature(of file: URL) throws {
        guard try readPrefix(of: file, count: Self.magic.count) == Self.magic else {
            throw StorageError.incompatibleStore(path: file.path, reason: "it is not an append log")
        }
    }
}

/// The open log: its file, positioned after the last commit, and the pairs the commits add up
/// to. `pairs` is read by any thread; the rest only by the write in progress (one at a time).
final class AppendLog: KeyValueEngineConnection, @unchecked Sendable {
    static let put: UInt8 = 1, delete: UInt8 = 2, commit: UInt8 = 0xFF
    let pairs: Mutex<SortedKeyMap<[UInt8]>>
    private let file: FileHandle
    private var end: UInt64

    /// Creates the log (as `log.new`, renamed when written, so `log` is never half there), or
    /// replays it: operations apply to `next`, which becomes the state at each commit marker;
    /// what follows the last marker is cut off.
    init(_ url: URL, creating: Bool) throws {
        if creating {
            try Data(AppendLogFormat.magic).write(to: url.appendingPathExtension("new"))
            try FileManager.default.moveItem(at: url.appendingPathExtension("new"), to: url)
        }
        var reader = LogReader(bytes: [UInt8](try Data(contentsOf: url)), offset: AppendLogFormat.magic.count)
        var state = SortedKeyMap<[UInt8]>(), next = state, end = reader.offset
        while let op = reader.byte() {
            if op == Self.commit {
                (state, end) = (next, reader.offset)
            } else if op == Self.put || op == Self.delete, let key = reader.chunk(), let value = op == Self.put ? reader.chunk() : [] {
                next[key] = op == Self.put ? value : nil
            } else {
                break
            }
        }
        (file, self.end) = (try FileHandle(forUpdating: url), UInt64(end))
        pairs = Mutex(state)
        try cut()
    }

    /// Drops everything after the last commit and continues from there.
    private func cut() throws {
        try file.truncate(atOffset: end)
        try file.seek(toOffset: end)
    }

    /// Appends the writer's operations and a commit marker, syncs, then publishes the new pairs.
    /// A failed append is cut off again, so that the next commit follows the last good one.
    func append(_ writer: BufferedKeyValueWriter) throws {
        guard writer.hasPendingOperations else { return }
        var record: [UInt8] = [], state = pairs.withLock { $0 }
        writer.forEachOperation { key, value in
            record += value.map { [Self.put] + LogReader.encode(key) + LogReader.encode($0) } ?? [Self.delete] + LogReader.encode(key)
            state[key] = value
        }
        record.append(Self.commit)
        do {
            try file.write(contentsOf: Data(record))
            try file.synchronize()
        } catch {
            try? cut()
            throw StorageError.engine(code: Int(EIO), message: "cannot append to the log: \(error)")
        }
        end += UInt64(record.count)
        pairs.withLock { $0 = state }
    }

    func close() { try? file.close() }
}

/// Reads the log: operation bytes and length-prefixed chunks (a 4-byte big-endian length, then
/// the bytes); `nil` past the end.
struct LogReader {
    let bytes: [UInt8]
    var offset: Int

    mutating func take(_ count: Int) -> [UInt8]? {
        guard offset + count <= bytes.count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func byte() -> UInt8? { take(1)?.first }

    mutating func chunk() -> [UInt8]? {
        take(4).flatMap { length in take(length.reduce(0) { $0 << 8 | Int($1) }) }
    }

    static func encode(_ chunk: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: UInt32(chunk.count).bigEndian, Array.init) + chunk
    }
}
