import Foundation
import Testing
import CoreStoreKeyValue
import CoreStoreStorage
@testable import CoreStoreLevelDB

@Suite("LevelDB engine")
struct LevelDBEngineTests {
    /// The deletion a migration uses to reclaim a generation, straight from an iterator: only
    /// the range, at most `limit` keys per write, the last key deleted reported for resuming.
    @Test
    func deletingTheFirstKeysOfARangeStopsAtTheLimitAndTheBound() throws {
        try withTemporaryStore { url in
            let engine = LevelDBEngine(directoryURL: url)
            try engine.open()
            defer { engine.close() }
            try engine.write { writer in
                for i in 0..<5 { try writer.put([0x02, UInt8(i)], [UInt8(i)]) }
                for key: [UInt8] in [[0x01], [0x03], [0x03, 0x00]] { try writer.put(key, [9]) }
            }
            let first = try engine.deleteFirstKeys(from: [0x02], to: [0x03], limit: 3)
            #expect(first.count == 3 && first.last == [0x02, 0x02])
            let rest = try engine.deleteFirstKeys(from: [0x02, 0x02, 0x00], to: [0x03], limit: 3)
            #expect(rest.count == 2)
            let none = try engine.deleteFirstKeys(from: [0x02], to: [0x03], limit: 3)
            #expect(none.count == 0 && none.last == nil)
            let left = try engine.read { reader -> [[UInt8]] in
                var keys: [[UInt8]] = []
                try reader.scan(from: [], to: [], reverse: false) { key, _ in keys.append(key); return true }
                return keys
            }
            #expect(left == [[0x01], [0x03], [0x03, 0x00]])
        }
    }

    /// A native batch hands back its writes in order: puts with their values (an empty one
    /// included), deletes without.
    @Test
    func aWriteBatchVisitsItsWritesInOrder() {
        let batch = LevelDBWriteBatch()
        let writes: [BufferedKeyValueWriter.Operation] = [.put(key: [1, 2], value: [3]), .delete(key: [4]), .put(key: [5], value: []), .put(key: [1, 2], value: [6, 7])]
        for write in writes {
            switch write {
            case .put(let key, let value): key.withUnsafeBytes { key in value.withUnsafeBytes { batch.put(key: key, value: $0) } }
            case .delete(let key): key.withUnsafeBytes { batch.delete(key: $0) }
            }
        }
        var visited: [BufferedKeyValueWriter.Operation] = []
        batch.forEach { key, value in visited.append(value.map { .put(key: Array(key), value: Array($0)) } ?? .delete(key: Array(key))) }
        #expect(visited == writes)
    }

    /// A write whose reads come between its puts fills several native batches; the engine
    /// applies them together, in order, and a write that throws applies none of them.
    @Test
    func aWriteAppliesAllOfItsBatchesOrNone() throws {
        try withTemporaryStore { url in
            let engine = LevelDBEngine(directoryURL: url)
            try engine.open()
            defer { engine.close() }
            try engine.write { writer in
                for i in 0..<4 as Range<UInt8> {
                    try writer.put([i], [i])
                    #expect(try writer.get([i]) == [i])
                    try writer.put([i], [i, i])
                    if i > 0 { try writer.delete([i - 1]) }
                }
            }
            func stored() throws -> [[UInt8]] {
                try engine.read { reader in
                    var pairs: [[UInt8]] = []
                    try reader.scan(from: [], to: [], reverse: false) { key, value in pairs.append(key + [0xFF] + value); return true }
                    return pairs
                }
            }
            #expect(try stored() == [[3, 0xFF, 3, 3]])
            struct Refused: Error {}
            #expect(throws: Refused.self) {
                try engine.write { writer in
                    try writer.put([8], [8])
                    _ = try writer.get([8])
                    try writer.put([9], [9])
                    throw Refused()
                }
            }
            #expect(try stored() == [[3, 0xFF, 3, 3]])
        }
    }

    /// Another process holds `LOCK` (a `fcntl` lock, as LevelDB takes it), through python3
    /// (installed by `scripts/ensure-deps.sh`).
    @Test
    func aDatabaseLockedByAnotherProcessIsReportedAsInUse() throws {
        try withTemporaryStore { url in
            let engine = LevelDBEngine(directoryURL: url)
            try engine.open()
            engine.close()
            let locker = Process()
            locker.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            locker.arguments = ["-c", "import fcntl, sys; f = open(sys.argv[1], 'r+'); fcntl.lockf(f, fcntl.LOCK_EX); print('locked', flush=True); sys.stdin.read()", url.appendingPathComponent("LOCK").path]
            let input = Pipe()
            let output = Pipe()
            locker.standardInput = input
            locker.standardOutput = output
            try locker.run()
            defer {
                try? input.fileHandleForWriting.close()
                locker.waitUntilExit()
            }
            let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            try #require(line.hasPrefix("locked"))
            do {
                try engine.open()
                engine.close()
                Issue.record("opened a database locked by another process")
            } catch let StorageError.engine(_, message) {
                #expect(message.contains("in use by another process or open handle"), "\(message)")
            }
        }
    }

    @Test func aGarbageCurrentFileIsIncompatibleAndUntouched() throws {
        try withTemporaryStore { url in
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data("hello, world".utf8).write(to: url.appendingPathComponent("CURRENT"))
            try expectRefusedAndUntouched(LevelDBEngine(directoryURL: url), at: url, "a garbage CURRENT")
        }
    }

    @Test func aGarbageManifestIsIncompatibleAndUntouched() throws {
        try withTemporaryStore { url in
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data("MANIFEST-000001\n".utf8).write(to: url.appendingPathComponent("CURRENT"))
            try Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: url.appendingPathComponent("MANIFEST-000001"))
            try Data("LOG of something else".utf8).write(to: url.appendingPathComponent("LOG"))
            try expectRefusedAndUntouched(LevelDBEngine(directoryURL: url), at: url, "a garbage manifest", destroying: false)
        }
    }

    @Test func aDamagedManifestIsReportedByLevelDBAsIncompatible() throws {
        try withTemporaryStore { url in
            let engine = LevelDBEngine(directoryURL: url)
            try engine.open()
            try engine.write { try $0.put([1], [1]) }
            engine.close()
            let current = try String(contentsOf: url.appendingPathComponent("CURRENT"), encoding: .utf8)
            let manifestURL = url.appendingPathComponent(String(current.dropLast()))
            var manifest = try Data(contentsOf: manifestURL)
            for index in 12..<manifest.count { manifest[index] ^= 0x5A }
            try manifest.write(to: manifestURL)
            do {
                try engine.open()
                Issue.record("opened a damaged manifest")
            } catch {
                #expect(isIncompatibleStore(error), "\(error)")
            }
        }
    }

    @Test func emptyKeysAreOrdinaryKeys() throws {
        try withTemporaryStore { url in
            let engine = LevelDBEngine(directoryURL: url)
            try engine.open()
            defer { engine.close() }
            try engine.write { writer in
                try writer.put([], [9])
                try writer.put([0], [])
            }
            #expect(try engine.read { try $0.get([]) } == [9])
            #expect(try engine.read { try collect($0) } == [Pair(key: [], value: [9]), Pair(key: [0], value: [])])
            #expect(try engine.read { try collect($0, reverse: true) } == [Pair(key: [0], value: []), Pair(key: [], value: [9])])
        }
    }
}
