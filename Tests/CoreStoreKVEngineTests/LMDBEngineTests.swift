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
