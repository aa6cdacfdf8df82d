import Foundation
import Testing
import CoreStoreKeyValue
import CoreStoreStorage
@testable import CoreStoreLevelDB

/// `leveldb_open` recovers the log into a new table and writes a new manifest before a damaged
/// table is ever read. A LevelDB store refused by `leveldb_open`, or by the first reads of its
/// caller (`open(confirmingWith:)`), keeps its files exactly as they were.
@Suite("LevelDB opening backup")
struct LevelDBOpeningBackupTests {
    /// A database with a table (written by a reopen, which compacts the log) and a log.
    private func makeDatabase(at url: URL) throws {
        for round in 0..<2 {
            let engine = LevelDBEngine(directoryURL: url)
            try engine.open()
            try engine.write { writer in
                for index in 0..<500 { try writer.put([UInt8(round), UInt8(index >> 8), UInt8(index & 0xFF)], [UInt8](repeating: UInt8(index & 0xFF), count: 100)) }
            }
            engine.close()
        }
    }

    @Test
    func aStoreRefusedByItsFirstReadsKeepsItsFiles() throws {
        try withTemporaryStore { url in
            try makeDatabase(at: url)
            let tables = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".ldb") }
            let table = url.appendingPathComponent(try #require(tables.first, "no table in \(url.path)"))
            var bytes = [UInt8](try Data(contentsOf: table))
            for offset in stride(from: 100, to: min(bytes.count, 4_000), by: 7) { bytes[offset] ^= 0xFF }
            try Data(bytes).write(to: table)
            let before = try snapshotOfFiles(at: url)
            let engine = LevelDBEngine(directoryURL: url)
            #expect(throws: (any Error).self) {
                try engine.open(confirmingWith: {
                    _ = try engine.read { reader in try collect(reader).count }
                })
            }
            #expect(try snapshotOfFiles(at: url) == before, "the refused store's files changed")
        }
    }

    @Test
    func aConfirmedOpenKeepsWhatLevelDBWroteAndLeavesNoLinks() throws {
        try withTemporaryStore { url in
            try makeDatabase(at: url)
            let engine = LevelDBEngine(directoryURL: url)
            var count = 0
            try engine.open(confirmingWith: {
                count = try engine.read { reader in try collect(reader).count }
            })
            #expect(count == 1_000)
            engine.close()
            #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent(LevelDBOpeningBackup.directoryName).path))
            try engine.open()
            defer { engine.close() }
            #expect(try engine.read { reader in try collect(reader).count } == 1_000)
        }
    }
}
