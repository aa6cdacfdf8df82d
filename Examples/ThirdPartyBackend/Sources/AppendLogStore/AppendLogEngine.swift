import Foundation
import CoreStoreKeyValue
import CoreStoreStorage

/// A sorted key-value engine kept as an append-only log file: every write appends its puts and
/// deletes followed by a commit marker, and opening the file replays the complete commits into
/// memory. A torn tail (a crash in the middle of an append) is ignored.
///
/// It exists to show how little a backend needs: implement ``OrderedKeyValueStore`` (this
/// file), wrap it in `KeyValueStorage` (``AppendLogStore``), and run the conformance suite.
/// Every commit sorts the key list again and the log is never compacted, so it suits small data.
public final class AppendLogEngine: OrderedKeyValueStore, @unchecked Sendable {
    static let magic = Array("CSLOG001".utf8)
    static let put: UInt8 = 1, delete: UInt8 = 2, commit: UInt8 = 0xFF

    public let fileURL: URL
    public var storeDescription: String { "AppendLogEngine(\(fileURL.path))" }
    public var isDurable: Bool { true }

    /// One immutable version of the data: what a reader sees.
    private struct Snapshot: KeyValueReader {
        var values: [[UInt8]: [UInt8]] = [:]
        var keys: [[UInt8]] = []

        func get(_ key: [UInt8]) throws -> [UInt8]? { values[key] }

        func scan(from lowerBound: [UInt8], to upperBound: [UInt8], reverse: Bool, _ visit: ([UInt8], [UInt8]) throws -> Bool) throws {
            let selected = keys.filter { !$0.lexicographicallyPrecedes(lowerBound) && (upperBound.isEmpty || $0.lexicographicallyPrecedes(upperBound)) }
            for key in reverse ? selected.reversed() : selected {
                guard let value = values[key] else { continue }
                if try !visit(key, value) { return }
            }
        }
    }

    private let lock = NSLock()
    private var snapshot: Snapshot?
    private var log: FileHandle?

    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    public func open() throws {
        try lock.withLock {
            if snapshot != nil { return }
            let manager = FileManager.default
            var isDirectory: ObjCBool = false
            if manager.fileExists(atPath: fileURL.path, isDirectory: &isDirectory), isDirectory.boolValue {
                throw StorageError.incompatibleStore(path: fileURL.path, reason: "it is a directory, not an append-log file")
            }
            if !manager.fileExists(atPath: fileURL.path) {
                try manager.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
                guard manager.createFile(atPath: fileURL.path, contents: Data(Self.magic)) else {
                    throw StorageError.engine(code: 1, message: "cannot create \(fileURL.path)")
                }
            }
            let bytes = [UInt8](try Data(contentsOf: fileURL))
            guard bytes.starts(with: Self.magic) else {
                throw StorageError.incompatibleStore(path: fileURL.path, reason: "it is not an append-log store")
            }
            var state = Snapshot()
            var reader = LogReader(bytes: bytes, offset: Self.magic.count)
            var pending: [([UInt8], [UInt8]?)] = []
            var committedEnd = reader.offset
            while let op = reader.byte() {
                if op == Self.commit {
                    for (key, value) in pending { state.values[key] = value }
                    pending = []
                    committedEnd = reader.offset
                } else if op == Self.put || op == Self.delete, let key = reader.chunk(), let value = op == Self.put ? reader.chunk() : [] {
                    pending.append((key, op == Self.put ? value : nil))
                } else {
                    break
                }
            }
            state.keys = state.values.keys.sorted { $0.lexicographicallyPrecedes($1) }
            let handle = try FileHandle(forUpdating: fileURL)
            try handle.truncate(atOffset: UInt64(committedEnd))
            try handle.seekToEnd()
            log = handle
            snapshot = state
        }
    }

    public func read<T>(_ body: (any KeyValueReader) throws -> T) throws -> T {
        try body(try current())
    }

    public func write<T>(_ body: (any KeyValueWriter) throws -> T) throws -> T {
        try lock.withLock {
            guard var state = snapshot, let log else { throw StorageError.notOpen(store: storeDescription) }
            let writer = BufferedKeyValueWriter(base: state)
            let result = try body(writer)
            var record: [UInt8] = []
            for operation in writer.operations {
                switch operation {
                case .put(let key, let value):
                    record += [Self.put] + LogReader.encode(key) + LogReader.encode(value)
                    state.values[key] = value
                case .delete(let key):
                    record += [Self.delete] + LogReader.encode(key)
                    state.values[key] = nil
                }
            }
            guard !record.isEmpty else { return result }
            do {
                try log.write(contentsOf: Data(record + [Self.commit]))
                try log.synchronize()
            } catch {
                throw StorageError.engine(code: 2, message: "cannot append to \(fileURL.path): \(error)")
            }
            state.keys = state.values.keys.sorted { $0.lexicographicallyPrecedes($1) }
            snapshot = state
            return result
        }
    }

    public func close() {
        lock.withLock {
            try? log?.close()
            log = nil
            snapshot = nil
        }
    }

    public func destroy() throws {
        close()
        if FileManager.default.fileExists(atPath: fileURL.path) { try FileManager.default.removeItem(at: fileURL) }
    }

    private func current() throws -> Snapshot {
        guard let snapshot = lock.withLock({ snapshot }) else { throw StorageError.notOpen(store: storeDescription) }
        return snapshot
    }
}

/// Length-prefixed byte chunks of the log.
struct LogReader {
    let bytes: [UInt8]
    var offset: Int

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func chunk() -> [UInt8]? {
        guard offset + 4 <= bytes.count else { return nil }
        let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        guard offset + 4 + length <= bytes.count else { return nil }
        defer { offset += 4 + length }
        return Array(bytes[offset + 4..<offset + 4 + length])
    }

    static func encode(_ chunk: [UInt8]) -> [UInt8] {
        let n = UInt32(chunk.count)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + chunk
    }
}
