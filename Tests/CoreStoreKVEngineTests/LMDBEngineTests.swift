import CLMDB
import Foundation
import Testing
import CoreStoreKeyValue
import CoreStoreStorage
import CoreStoreLMDB

@Suite("LMDB engine")
struct LMDBEngineTests {
    @Test func theMapGrowsUntilAWriteFits() throws {
        try withTemporaryStore { url in
            let engine = LMDBEngine(directoryURL: url, initialMapSize: 64 << 10)
            try engine.open()
            defer { engine.close() }
            let startSize = try #require(engine.mapSize)
            #expect(startSize == 64 << 10)
            var runs = 0
            try engine.write { writer in
                runs += 1
                for index in 0..<1024 {
                    try writer.put([UInt8(index >> 8), UInt8(index & 0xFF)], [UInt8](repeating: UInt8(index & 0xFF), count: 4096))
                }
            }
            #expect(runs > 1)
            for round in 0..<4 {
                try engine.write { writer in
                    for index in 0..<256 {
                        try writer.put([0xF0, UInt8(round), UInt8(index)], [UInt8](repeating: 7, count: 2048))
                    }
                }
            }
            let grownSize = try #require(engine.mapSize)
            #expect(grownSize >= 4 << 20)
            try engine.read { reader throws in
                #expect(try reader.get([0x03, 0xFF]) == [UInt8](repeating: 0xFF, count: 4096))
                #expect(try collect(reader).count == 1024 + 4 * 256)
            }
        }
    }

    @Test func aWriteBeyondTheMaximumMapThrowsMapFullAndWritesNothing() throws {
        try withTemporaryStore { url in
            let engine = LMDBEngine(directoryURL: url, initialMapSize: 64 << 10, maximumMapSize: 256 << 10)
            try engine.open()
            defer { engine.close() }
            try engine.write { try $0.put([1], [1]) }
            do {
                try engine.write { writer in
                    for index in 0..<256 {
                        try writer.put([2, UInt8(index)], [UInt8](repeating: 1, count: 4096))
                    }
                }
                Issue.record("a 1 MiB write fit in a 256 KiB map")
            } catch let StorageError.engine(code, message) {
                #expect(code == Int(MDB_MAP_FULL))
                #expect(message.contains("full"), "\(message)")
            }
            #expect(try engine.read { try collect($0) } == [Pair(key: [1], value: [1])])
            #expect(engine.mapSize == 256 << 10)
        }
    }

    @Test func aDataFileThatIsNotLMDBIsIncompatibleAndUntouched() throws {
        try withTemporaryStore { url in
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: url.appendingPathComponent("data.mdb"))
            try expectRefusedAndUntouched(LMDBEngine(directoryURL: url), at: url, "a garbage data.mdb")
        }
    }

    @Test func aTruncatedDataFileIsIncompatibleAndUntouched() throws {
        try withTemporaryStore { url in
            let engine = LMDBEngine(directoryURL: url)
            try engine.open()
            try engine.write { try $0.put([1], [1]) }
            engine.close()
            let dataURL = url.appendingPathComponent("data.mdb")
            try Data(try Data(contentsOf: dataURL).prefix(100)).write(to: dataURL)
            try FileManager.default.removeItem(at: url.appendingPathComponent("lock.mdb"))
            try expectRefusedAndUntouched(engine, at: url, "a truncated data.mdb", destroying: false)
        }
    }

    /// Found by the conformance suite's `files` group: a `data.mdb` cut to two pages kept valid
    /// meta pages, passed the header check, and LMDB's map then crashed the process (SIGBUS) on
    /// the first read of a page past the end of the file.
    @Test func aDataFileCutBeforeItsLastPageIsIncompatibleAndUntouched() throws {
        try withTemporaryStore { url in
            let engine = LMDBEngine(directoryURL: url)
            try engine.open()
            for index in 0..<64 {
                try engine.write { try $0.put([1, UInt8(index)], [UInt8](repeating: UInt8(index), count: 2048)) }
            }
            engine.close()
            let dataURL = url.appendingPathComponent("data.mdb")
            let whole = try Data(contentsOf: dataURL)
            #expect(whole.count > 4 * 4096)
            try Data(whole.prefix(2 * 4096)).write(to: dataURL)
            try expectRefusedAndUntouched(engine, at: url, "a data.mdb cut to its two meta pages", destroying: false)
        }
    }

    /// Found by `corestore torture migrations`: LMDB does not write a page it allocated and freed
    /// in the same transaction, so a valid `data.mdb` may end before the last page its meta page
    /// records — every page past the end is free. The file check refused such a store (left by
    /// a migration killed and then cleaned up at the next open) as truncated.
    @Test func aDataFileEndingBeforeItsFreeLastPagesOpens() throws {
        try withTemporaryStore { url in
            let engine = LMDBEngine(directoryURL: url)
            try engine.open()
            for index in 0..<64 {
                try engine.write { try $0.put([1, UInt8(index)], [UInt8](repeating: UInt8(index), count: 2048)) }
            }
            try engine.write { try $0.put([2], [UInt8](repeating: 9, count: 40 << 10)) }
            try engine.write { try $0.delete([2]) }
            engine.close()
            // Cut off the pages at the end that LMDB itself lists as free: the state LMDB leaves
            // when the freed pages were never written.
            let dataURL = url.appendingPathComponent("data.mdb")
            let whole = try Data(contentsOf: dataURL)
            let pageSize = Int(whole[40]) | Int(whole[41]) << 8 | Int(whole[42]) << 16
            let free = try freePages(of: url)
            var pages = whole.count / pageSize
            while pages > 2, free.contains(pages - 1) { pages -= 1 }
            #expect(whole.count / pageSize - pages >= 4, "the deleted value's pages are free at the end of the file")
            try Data(whole.prefix(pages * pageSize)).write(to: dataURL)

            try engine.open()
            defer { engine.close() }
            let pairs = try engine.read { try collect($0) }
            #expect(pairs.count == 64)
            #expect(pairs.last?.value == [UInt8](repeating: 63, count: 2048))
        }
    }

    /// The pages LMDB's free database lists, read through LMDB in a read-only environment.
    private func freePages(of url: URL) throws -> Set<Int> {
        var environment: OpaquePointer?
        #expect(mdb_env_create(&environment) == MDB_SUCCESS)
        defer { mdb_env_close(environment) }
        try #require(mdb_env_open(environment, url.path, UInt32(MDB_RDONLY), 0o644) == MDB_SUCCESS)
        var transaction: OpaquePointer?
        try #require(mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &transaction) == MDB_SUCCESS)
        defer { mdb_txn_abort(transaction) }
        var cursor: OpaquePointer?
        try #require(mdb_cursor_open(transaction, 0, &cursor) == MDB_SUCCESS)
        defer { mdb_cursor_close(cursor) }
        var key = MDB_val(), value = MDB_val()
        var free = Set<Int>()
        while mdb_cursor_get(cursor, &key, &value, MDB_NEXT) == MDB_SUCCESS {
            // An ID list: the count, then the page numbers.
            let list = UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
            let count = list.loadUnaligned(as: Int.self)
            for index in stride(from: 1, through: count, by: 1) {
                free.insert(list.loadUnaligned(fromByteOffset: 8 * index, as: Int.self))
            }
        }
        return free
    }

    @Test func emptyAndOversizedKeysAreRefusedByPutAndAbsentForReads() throws {
        try withTemporaryStore { url in
            let engine = LMDBEngine(directoryURL: url)
            try engine.open()
            defer { engine.close() }
            for key in [[UInt8](), [UInt8](repeating: 1, count: 512)] {
                #expect(throws: StorageError.self) { try engine.write { try $0.put(key, [1]) } }
                #expect(try engine.read { try $0.get(key) } == nil)
                try engine.write { try $0.delete(key) }
            }
            try engine.write { try $0.put([UInt8](repeating: 1, count: 511), [1]) }
            let long = [UInt8](repeating: 1, count: 600)
            #expect(try engine.read { try collect($0, from: long) } == [])
            #expect(try engine.read { try collect($0, to: long, reverse: true) }.count == 1)
        }
    }
}
