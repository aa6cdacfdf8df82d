import Foundation
import Testing
import CoreStoreKeyValue
import CoreStoreStorage
@testable import CoreStoreLevelDB

/// The block cache an engine is given (`LevelDBEngine.blockCacheSize`) is the one its reads
/// fill: nothing is cached with a size of zero (or less), a small cache stays within its size,
/// and the default holds a whole table of a few MiB.
@Suite("LevelDB block cache")
struct LevelDBBlockCacheTests {
    /// 4,000 values of 512 bytes: about 2 MiB of table blocks once the database is reopened,
    /// compressed on disk.
    private static let valueCount = 4_000
    private static let valueLength = 512

    /// Writes the values, reopens the engine (LevelDB writes the recovered log to a table), reads
    /// every pair twice and returns how much the engine's memory grew through the reads: the
    /// cached blocks (the write buffers do not change on reads).
    private func cacheGrowthFromReadingATable(blockCacheSize: Int) throws -> Int {
        try withTemporaryStore { url in
            let writing = LevelDBEngine(directoryURL: url, durability: .normal, blockCacheSize: blockCacheSize)
            try writing.open()
            try writing.write { writer in
                for index in 0..<Self.valueCount {
                    // Text that compresses: LevelDB caches the blocks it decompressed, while an
                    // uncompressed block is read in place from the mapped file.
                    let text = String(repeating: "value \(index) ", count: Self.valueLength)
                    try writer.put([0x01, UInt8(index >> 8), UInt8(index & 0xFF)], Array(text.utf8.prefix(Self.valueLength)))
                }
            }
            writing.close()
            let engine = LevelDBEngine(directoryURL: url, durability: .normal, blockCacheSize: blockCacheSize)
            try engine.open()
            defer { engine.close() }
            let before = try engine.approximateMemoryUsage()
            for _ in 0..<2 {
                let pairs = try engine.read { try collect($0) }
                #expect(pairs.count == Self.valueCount)
            }
            return try engine.approximateMemoryUsage() - before
        }
    }

    @Test("A cache of zero bytes, or of a negative size, keeps no block", arguments: [0, -1 << 20])
    func noCache(size: Int) throws {
        #expect(try cacheGrowthFromReadingATable(blockCacheSize: size) == 0)
    }

    @Test("A small cache fills up to its size and no further")
    func smallCache() throws {
        let size = 256 << 10
        let growth = try cacheGrowthFromReadingATable(blockCacheSize: size)
        #expect(growth > size / 2)
        // LevelDB may keep one block over the size per shard for blocks an iterator still held.
        #expect(growth <= size + 16 * 8 << 10)
    }

    @Test("The default cache holds the whole table")
    func defaultCache() throws {
        let growth = try cacheGrowthFromReadingATable(blockCacheSize: LevelDBEngine.defaultBlockCacheSize)
        #expect(growth >= Self.valueCount * Self.valueLength)
        #expect(growth <= LevelDBEngine.defaultBlockCacheSize)
    }

    @Test("Stores and engines report the size they were given, 16 MiB by default")
    func reportedSizes() {
        let url = URL(fileURLWithPath: "/tmp/unused.leveldb", isDirectory: true)
        #expect(LevelDBEngine.defaultBlockCacheSize == 16 * 1024 * 1024)
        #expect(LevelDBEngine(directoryURL: url).blockCacheSize == LevelDBEngine.defaultBlockCacheSize)
        #expect(LevelDBStore(fileURL: url).blockCacheSize == LevelDBEngine.defaultBlockCacheSize)
        #expect(LevelDBStore(fileURL: url, blockCacheSize: 3 << 20).blockCacheSize == 3 << 20)
        #expect(LevelDBStore(fileName: "unused.leveldb", blockCacheSize: 1 << 20).blockCacheSize == 1 << 20)
    }
}
