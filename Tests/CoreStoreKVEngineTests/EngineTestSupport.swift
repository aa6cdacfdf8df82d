import Foundation
import Testing
import CoreStoreKeyValue
import CoreStoreStorage
import CoreStoreLMDB
import CoreStoreLevelDB

/// The engines every shared test runs against.
enum EngineKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case lmdb
    case leveldb

    var testDescription: String { rawValue }

    /// An engine (not yet open) for the store in `directory`; with `smallMap`, an LMDB map
    /// starts at 64 KiB so that writes make it grow.
    func engine(at directory: URL, durability: CommitDurability = .full, smallMap: Bool = false) -> any OrderedKeyValueStore {
        switch self {
        case .lmdb: return LMDBEngine(directoryURL: directory, durability: durability, initialMapSize: smallMap ? 64 << 10 : LMDBEngine.defaultInitialMapSize)
        case .leveldb: return LevelDBEngine(directoryURL: directory, durability: durability)
        }
    }

    /// An open engine for `directory`.
    func openEngine(at directory: URL) throws -> any OrderedKeyValueStore {
        let engine = engine(at: directory)
        try engine.open()
        return engine
    }
}

/// A key-value pair, comparable in tests.
struct Pair: Equatable, CustomStringConvertible {
    let key: [UInt8]
    let value: [UInt8]
    var description: String { "\(key)=\(value)" }
}

/// Runs `body` with a fresh path inside a new temporary directory, removed afterwards.
/// The path itself does not exist yet.
func withTemporaryStore<T>(_ body: (URL) throws -> T) throws -> T {
    let parent = FileManager.default.temporaryDirectory
        .appendingPathComponent("corestore-kv-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: parent) }
    return try body(parent.appendingPathComponent("store", isDirectory: true))
}

/// Every pair `scan` visits.
func collect(_ reader: any KeyValueReader, from lower: [UInt8] = [], to upper: [UInt8] = [], reverse: Bool = false, limit: Int = .max) throws -> [Pair] {
    var pairs: [Pair] = []
    try reader.scan(from: lower, to: upper, reverse: reverse) { key, value in
        pairs.append(Pair(key: key, value: value))
        return pairs.count < limit
    }
    return pairs
}

/// What a scan of `model` must visit.
func expectedScan(_ model: [[UInt8]: [UInt8]], from lower: [UInt8], to upper: [UInt8], reverse: Bool, limit: Int = .max) -> [Pair] {
    let keys = model.keys
        .filter { !$0.lexicographicallyPrecedes(lower) && (upper.isEmpty || $0.lexicographicallyPrecedes(upper)) }
        .sorted { $0.lexicographicallyPrecedes($1) }
    let ordered = reverse ? Array(keys.reversed()) : keys
    return ordered.prefix(limit).map { Pair(key: $0, value: model[$0] ?? []) }
}

/// Checks every scan over a set of bounds (inclusive lower, exclusive upper, empty upper),
/// both directions, with and without early stop, against `model`.
func expectScansMatch(_ reader: any KeyValueReader, _ model: [[UInt8]: [UInt8]], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let bounds: [[UInt8]] = [[], [0x00], [0x01], [0x01, 0x00], [0x02], [0x02, 0xFF], [0x7F], [0xFF], [0xFF, 0xFF], [0xFF, 0xFF, 0xFF]]
    for lower in bounds {
        for upper in bounds where upper.isEmpty || !upper.lexicographicallyPrecedes(lower) {
            for reverse in [false, true] {
                for limit in [Int.max, 1, 2] {
                    let actual = try collect(reader, from: lower, to: upper, reverse: reverse, limit: limit)
                    let expected = expectedScan(model, from: lower, to: upper, reverse: reverse, limit: limit)
                    #expect(actual == expected, "scan \(lower)..<\(upper) reverse: \(reverse) limit: \(limit)", sourceLocation: sourceLocation)
                    guard !reverse else { continue }
                    // The in-place scans visit the same keys and values.
                    var keys: [[UInt8]] = []
                    try reader.scanKeys(from: lower, to: upper) { key in
                        keys.append(Array(key))
                        return keys.count < limit
                    }
                    #expect(keys == expected.map(\.key), "scanKeys \(lower)..<\(upper) limit: \(limit)", sourceLocation: sourceLocation)
                    var values: [[UInt8]] = []
                    try reader.scanValues(from: lower, to: upper) { value in
                        values.append(Array(value))
                        return values.count < limit
                    }
                    #expect(values == expected.map(\.value), "scanValues \(lower)..<\(upper) limit: \(limit)", sourceLocation: sourceLocation)
                }
            }
        }
    }
    // The in-place lookup lends what `get` returns, and says when there is nothing.
    for key in model.keys + [[0x03], [0x01, 0x00, 0x00, 0x00]] {
        var lent: [UInt8]?
        let found = try reader.withValue(key) { lent = Array($0) }
        #expect(found == (model[key] != nil) && lent == model[key], "withValue \(key)", sourceLocation: sourceLocation)
    }
}

/// The names and bytes of every file under `url` (or of the file itself).
func snapshotOfFiles(at url: URL) throws -> [String: Data] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return [:] }
    guard isDirectory.boolValue else { return ["": try Data(contentsOf: url)] }
    var result: [String: Data] = [:]
    for name in try FileManager.default.subpathsOfDirectory(atPath: url.path) {
        let file = url.appendingPathComponent(name)
        var isSubdirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: file.path, isDirectory: &isSubdirectory)
        result[name] = isSubdirectory.boolValue ? Data() : try Data(contentsOf: file)
    }
    return result
}

/// Whether `error` is `StorageError.incompatibleStore`.
/// Opening `engine` over `url` is refused as an incompatible store (and, with `destroying`,
/// `destroy()` refuses to delete it), and the files under `url` are byte-for-byte what they were.
func expectRefusedAndUntouched(_ engine: some OrderedKeyValueStore, at url: URL, _ what: String, destroying: Bool = true) throws {
    let before = try snapshotOfFiles(at: url)
    do {
        try engine.open()
        Issue.record("opened \(what)")
    } catch {
        #expect(isIncompatibleStore(error), "\(error)")
    }
    if destroying {
        do { try engine.destroy() } catch { #expect(isIncompatibleStore(error), "\(error)") }
    }
    #expect(try snapshotOfFiles(at: url) == before)
}

func isIncompatibleStore(_ error: any Error) -> Bool {
    if case StorageError.incompatibleStore = error { return true }
    return false
}

/// A value shared between threads in a test, behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withValue<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try lock.withLock { try body(&value) }
    }
}

/// A deterministic generator for randomized tests.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
