import Foundation
import Testing
import CoreStoreKeyValue
import CoreStoreStorage
@testable import CoreStoreLevelDB

/// A power cut can leave the unsynced end of LevelDB's log in part on disk; LevelDB with
/// `paranoid_checks` refuses such a log. `LevelDBTornTails` cuts a torn end off before opening,
/// refuses damage that no power cut leaves (with `.full`), and keeps a prefix with `.normal`.
@Suite("LevelDB torn log ends")
struct LevelDBTornTailTests {
    /// Six commits of 20,000-byte values, so records span the log's 32 KiB blocks.
    static let commits = 6
    static let valueSize = 20_000

    /// A store holding the commits, closed, and the URL of its log.
    private func makeStore(at url: URL) throws -> URL {
        let engine = LevelDBEngine(directoryURL: url)
        try engine.open()
        for commit in 0..<Self.commits {
            try engine.write { try $0.put([UInt8(commit)], [UInt8](repeating: UInt8(commit), count: Self.valueSize)) }
        }
        engine.close()
        let logs = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".log") }
        let log = try #require(logs.max(), "no log in \(url.path)")
        return url.appendingPathComponent(log)
    }

    /// Which commits the store holds, each checked whole.
    private func committed(in engine: LevelDBEngine) throws -> [Int] {
        try engine.read { reader in
            try (0..<Self.commits).filter { commit in
                guard let value = try reader.get([UInt8(commit)]) else { return false }
                #expect(value == [UInt8](repeating: UInt8(commit), count: Self.valueSize), "commit \(commit) is not whole")
                return true
            }
        }
    }

    private func overwrite(_ file: URL, at offset: Int, count: Int, with byte: UInt8) throws {
        var bytes = [UInt8](try Data(contentsOf: file))
        bytes.replaceSubrange(offset..<(offset + count), with: repeatElement(byte, count: count))
        try Data(bytes).write(to: file)
    }

    @Test
    func aTornLastRecordIsCutOffAndEveryEarlierCommitKept() throws {
        try withTemporaryStore { url in
            let log = try makeStore(at: url)
            let size = try Data(contentsOf: log).count
            // The last record is about 20 KB long: garbage in its last 3,000 bytes.
            try overwrite(log, at: size - 3_000, count: 3_000, with: 0x55)
            guard case .tornTail(let intactLength, _) = LevelDBLogTail.examine([UInt8](try Data(contentsOf: log))) else {
                Issue.record("the torn log is not seen as torn")
                return
            }
            #expect(intactLength < size - Self.valueSize)
            let engine = LevelDBEngine(directoryURL: url)
            try engine.open()
            defer { engine.close() }
            #expect(try committed(in: engine) == Array(0..<(Self.commits - 1)))
        }
    }

    @Test
    func aLogCutShortByTheEndOfTheFileIsLeftToLevelDB() throws {
        try withTemporaryStore { url in
            let log = try makeStore(at: url)
            let bytes = [UInt8](try Data(contentsOf: log))
            try Data(bytes.prefix(bytes.count - 5_000)).write(to: log)
            #expect(LevelDBLogTail.examine(Array(bytes.prefix(bytes.count - 5_000))) == .intact)
            let engine = LevelDBEngine(directoryURL: url)
            try engine.open()
            defer { engine.close() }
            #expect(try committed(in: engine) == Array(0..<(Self.commits - 1)))
        }
    }

    @Test
    func damageFollowedByIntactCommitsIsRefusedWithFullDurability() throws {
        try withTemporaryStore { url in
            let log = try makeStore(at: url)
            try overwrite(log, at: 100, count: 100, with: 0x55)
            guard case .damaged(let intactLength, let damageOffset) = LevelDBLogTail.examine([UInt8](try Data(contentsOf: log))) else {
                Issue.record("damage in the first record is not seen as damage followed by intact records")
                return
            }
            #expect(intactLength == 0 && damageOffset == 0)
            try expectRefusedAndUntouched(LevelDBEngine(directoryURL: url), at: url, "a log damaged in its first record", destroying: false)
        }
    }

    @Test
    func damageFollowedByIntactCommitsKeepsThePrefixWithNormalDurability() throws {
        try withTemporaryStore { url in
            let log = try makeStore(at: url)
            // Inside the third commit's record, so that the first two stay whole.
            try overwrite(log, at: 2 * (Self.valueSize + 100) + 500, count: 100, with: 0x55)
            let engine = LevelDBEngine(directoryURL: url, durability: .normal)
            try engine.open()
            defer { engine.close() }
            #expect(try committed(in: engine) == [0, 1])
        }
    }

    @Test
    func aTornManifestEndIsCutOff() throws {
        try withTemporaryStore { url in
            _ = try makeStore(at: url)
            let current = try String(contentsOf: url.appendingPathComponent("CURRENT"), encoding: .utf8)
            let manifest = url.appendingPathComponent(current.trimmingCharacters(in: .newlines))
            var bytes = [UInt8](try Data(contentsOf: manifest))
            let intact = bytes.count
            // An edit whose header promises 40 bytes and whose payload is garbage.
            bytes += [0x12, 0x34, 0x56, 0x78, 40, 0, 1] + [UInt8](repeating: 0x55, count: 40)
            try Data(bytes).write(to: manifest)
            #expect(LevelDBLogTail.examine(bytes) == .tornTail(intactLength: intact, damageOffset: intact))
            let engine = LevelDBEngine(directoryURL: url)
            try engine.open()
            defer { engine.close() }
            #expect(try committed(in: engine) == Array(0..<Self.commits))
        }
    }
}
