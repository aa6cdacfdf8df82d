import Dispatch
import Foundation
import Testing
import CoreStoreKeyValue
import CoreStoreStorage

/// The `OrderedKeyValueStore` requirements, checked on every engine.
@Suite("KV engines")
struct KVEngineTests {
    private static let sampleModel: [[UInt8]: [UInt8]] = [
        [0x00]: [0x10],
        [0x01]: [],
        [0x01, 0x00]: [0x00, 0x00],
        [0x01, 0x00, 0x00]: [0x11],
        [0x02]: [0xFF],
        [0x02, 0xFF]: [0x12],
        [0x7F, 0x00, 0xFF]: [],
        [0xFF]: [0x13, 0x00],
        [0xFF, 0x00]: [0x14],
        [0xFF, 0xFF]: [0xFF, 0xFF],
    ]

    @Test(arguments: EngineKind.allCases)
    func putGetAndDelete(_ kind: EngineKind) throws {
        try withTemporaryStore { url in
            let engine = try kind.openEngine(at: url)
            defer { engine.close() }
            try engine.write { writer in
                try writer.put([1, 2, 3], [4, 5])
                try writer.put([9], [6])
            }
            #expect(try engine.read { try $0.get([1, 2, 3]) } == [4, 5])
            #expect(try engine.read { try $0.get([1, 2]) } == nil)
            try engine.write { writer in
                try writer.put([1, 2, 3], [7])
                try writer.delete([9])
                try writer.delete([8])
            }
            #expect(try engine.read { try $0.get([1, 2, 3]) } == [7])
            #expect(try engine.read { try $0.get([9]) } == nil)
        }
    }

    /// Puts of bytes in place (what a commit does) store what puts of arrays store, also an
    /// empty value, a key put again in the same write, and a buffer rewritten between puts.
    @Test(arguments: EngineKind.allCases)
    func putsOfBytesInPlaceStoreWhatArrayPutsStore(_ kind: EngineKind) throws {
        try withTemporaryStore { url in
            let engine = try kind.openEngine(at: url)
            defer { engine.close() }
            var g = SeededGenerator(seed: 31)
            var model: [[UInt8]: [UInt8]] = [:]
            try engine.write { writer in
                var keyBuffer: [UInt8] = [], valueBuffer: [UInt8] = []
                for i in 0..<300 {
                    keyBuffer = [UInt8(i % 40), UInt8.random(in: 0...3, using: &g)]
                    valueBuffer = (0..<Int.random(in: 0...20, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
                    if i % 3 == 0 {
                        try writer.put(keyBuffer, valueBuffer)
                    } else {
                        try keyBuffer.withUnsafeBytes { key in try valueBuffer.withUnsafeBytes { try writer.put(keyBytes: key, valueBytes: $0) } }
                    }
                    model[keyBuffer] = valueBuffer
                    if i % 50 == 0 { #expect(try writer.get(keyBuffer) == valueBuffer) }
                }
            }
            try engine.read { try expectScansMatch($0, model) }
        }
    }

    /// One write of thousands of puts (so that pages split), in ascending runs and in random
    /// order, with deletes, lookups and scans between them: what a large commit does. LMDB
    /// puts through one cursor that stays where the last put left it; the deletes and reads in
    /// between must not leave it pointing at the wrong place.
    @Test(arguments: EngineKind.allCases)
    func manyPutsWithDeletesAndReadsBetweenThemStoreWhatTheModelHolds(_ kind: EngineKind) throws {
        try withTemporaryStore { url in
            let engine = try kind.openEngine(at: url)
            defer { engine.close() }
            var g = SeededGenerator(seed: 77)
            var model: [[UInt8]: [UInt8]] = [:]
            func key(_ region: UInt8, _ n: Int) -> [UInt8] { [region, UInt8(n >> 8), UInt8(n & 0xFF)] }
            try engine.write { writer in
                for step in 0..<6_000 {
                    let k: [UInt8]
                    switch step % 4 {
                    case 0, 1: k = key(1, step)                                  // ascending, like new records
                    case 2: k = key(2, Int.random(in: 0..<4_000, using: &g))     // anywhere, like an index
                    default: k = key(1, Int.random(in: 0..<max(1, step), using: &g))  // back into the run
                    }
                    let value = (0..<Int.random(in: 0...40, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
                    try writer.put(k, value)
                    model[k] = value
                    if step % 7 == 0, let victim = model.keys.randomElement(using: &g) {
                        try writer.delete(victim)
                        model[victim] = nil
                    }
                    if step % 97 == 0 {
                        #expect(try writer.get(k) == model[k])
                        var seen = 0
                        try writer.scan(from: key(1, 0), to: key(1, 200), reverse: false) { _, _ in
                            seen += 1
                            return true
                        }
                        #expect(seen == model.keys.filter { $0.lexicographicallyPrecedes(key(1, 200)) && !$0.lexicographicallyPrecedes(key(1, 0)) }.count)
                    }
                }
            }
            try engine.read { try expectScansMatch($0, model) }
        }
    }

    @Test(arguments: EngineKind.allCases)
    func scansHonorBoundsInBothDirections(_ kind: EngineKind) throws {
        try withTemporaryStore { url in
            let engine = try kind.openEngine(at: url)
            defer { engine.close() }
            try engine.write { writer in
                for (key, value) in Self.sampleModel { try writer.put(key, value) }
            }
            try engine.read { try expectScansMatch($0, Self.sampleModel) }
        }
    }

    @Test(arguments: EngineKind.allCases)
    func zeroAndFFBytesAndEmptyValuesRoundTrip(_ kind: EngineKind) throws {
        try withTemporaryStore { url in
            let engine = try kind.openEngine(at: url)
            defer { engine.close() }
            try engine.write { writer in
                for (key, value) in Self.sampleModel { try writer.put(key, value) }
            }
            try engine.read { reader throws in
                for (key, value) in Self.sampleModel {
                    #expect(try reader.get(key) == value, "key \(key)")
                }
                #expect(try reader.get([0x01, 0x00, 0x00, 0x00]) == nil)
            }
        }
    }

    @Test(arguments: EngineKind.allCases)
    func aReadDoesNotSeeAWriteCommittedAfterItStarted(_ kind: EngineKind) throws {
        try withTemporaryStore { url in
            let engine = try kind.openEngine(at: url)
            defer { engine.close() }
            try engine.write { try $0.put([1], [1]) }
            let readStarted = DispatchSemaphore(value: 0)
            let writeCommitted = DispatchSemaphore(value: 0)
            let readFinished = DispatchSemaphore(value: 0)
            let seen = Locked<[String]>([])
            DispatchQueue.global().async {
                do {
                    try engine.read { reader in
                        let before = try reader.get([1])
                        readStarted.signal()
                        writeCommitted.wait()
                        let after = try reader.get([1])
                        let scanned = try collect(reader)
                        seen.withValue { $0 = ["\(String(describing: before))", "\(String(describing: after))", "\(scanned)"] }
                    }
                } catch {
                    seen.withValue { $0 = ["error: \(error)"] }
                }
                readFinished.signal()
            }
            readStarted.wait()
            try engine.write { writer in
                try writer.put([1], [2])
                try writer.put([2], [2])
            }
            writeCommitted.signal()
            readFinished.wait()
            #expect(seen.withValue { $0 } == ["Optional([1])", "Optional([1])", "[[1]=[1]]"])
            #expect(try engine.read { try collect($0) } == [Pair(key: [1], value: [2]), Pair(key: [2], value: [2])])
        }
    }

    @Test(arguments: EngineKind.allCases)
    func aThrowingWriteLeavesNothing(_ kind: EngineKind) throws {
        struct Abort: Error {}
        try withTemporaryStore { url in
            let engine = try kind.openEngine(at: url)
            defer { engine.close() }
            try engine.write { try $0.put([1], [1]) }
            #expect(throws: Abort.self) {
                try engine.write { writer in
                    try writer.put([2], [2])
                    try writer.delete([1])
                    throw Abort()
                }
            }
            #expect(try engine.read { try collect($0) } == [Pair(key: [1], value: [1])])
        }
    }

    @Test(arguments: EngineKind.allCases)
    func readsInsideAWriteSeeItsOwnWrites(_ kind: EngineKind) throws {
        try withTemporaryStore { url in
            let engine = try kind.openEngine(at: url)
            defer { engine.close() }
            try engine.write { writer in
                for (key, value) in Self.sampleModel { try writer.put(key, value) }
            }
            var model = Self.sampleModel
            try engine.write { writer in
                let changes: [([UInt8], [UInt8]?)] = [
                    ([0x01], nil), ([0x01, 0x00, 0x00], [0x21]), ([0x01, 0x01], [0x22]), ([0x00, 0x00], []),
                    ([0xFF, 0xFF], nil), ([0xFF, 0xFF, 0xFF, 0xFF], [0x23]), ([0x03], nil), ([0x02, 0xFF], nil),
                ]
                for (key, value) in changes {
                    if let value {
                        try writer.put(key, value)
                        model[key] = value
                    } else {
                        try writer.delete(key)
                        model[key] = nil
                    }
                }
                #expect(try writer.get([0x01]) == nil)
                #expect(try writer.get([0x01, 0x00, 0x00]) == [0x21])
                #expect(try writer.get([0x00, 0x00]) == [])
                try expectScansMatch(writer, model)
            }
            try engine.read { try expectScansMatch($0, model) }
        }
    }

    @Test(arguments: EngineKind.allCases)
    func randomWritesMatchAModel(_ kind: EngineKind) throws {
        try withTemporaryStore { url in
            let engine = try kind.openEngine(at: url)
            defer { engine.close() }
            var generator = SeededGenerator(seed: 42)
            var model: [[UInt8]: [UInt8]] = [:]
            for _ in 0..<6 {
                try engine.write { writer in
                    for _ in 0..<150 {
                        let key = (0..<Int.random(in: 1...3, using: &generator)).map { _ in ([0x00, 0x01, 0x02, 0x7F, 0xFE, 0xFF] as [UInt8]).randomElement(using: &generator) ?? 0 }
                        if Bool.random(using: &generator) {
                            let value = (0..<Int.random(in: 0...3, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                            try writer.put(key, value)
                            model[key] = value
                        } else {
                            try writer.delete(key)
                            model[key] = nil
                        }
                    }
                    try expectScansMatch(writer, model)
                }
                try engine.read { try expectScansMatch($0, model) }
            }
        }
    }

    @Test(arguments: EngineKind.allCases)
    func reopeningKeepsTheData(_ kind: EngineKind) throws {
        try withTemporaryStore { url in
            let engine = try kind.openEngine(at: url)
            try engine.write { writer in
                for (key, value) in Self.sampleModel { try writer.put(key, value) }
            }
            engine.close()
            let reopened = try kind.openEngine(at: url)
            defer { reopened.close() }
            try reopened.read { try expectScansMatch($0, Self.sampleModel) }
        }
    }

    @Test(arguments: EngineKind.allCases)
    func readsRunConcurrentlyOnSeveralThreads(_ kind: EngineKind) throws {
        try withTemporaryStore { url in
            let engine = try kind.openEngine(at: url)
            defer { engine.close() }
            try engine.write { writer in
                for index in 0..<500 { try writer.put([UInt8(index >> 8), UInt8(index & 0xFF)], [UInt8(index & 0xFF)]) }
            }
            let failures = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                do {
                    for round in 0..<20 {
                        try engine.read { reader in
                            let all = try collect(reader, reverse: (thread + round) % 2 == 0)
                            if all.count != 500 { failures.withValue { $0.append("thread \(thread) saw \(all.count) pairs") } }
                            if try reader.get([0x01, 0x02]) != [0x02] { failures.withValue { $0.append("thread \(thread) misread") } }
                        }
                    }
                } catch {
                    failures.withValue { $0.append("thread \(thread): \(error)") }
                }
            }
            #expect(failures.withValue { $0 } == [])
        }
    }

    @Test(arguments: EngineKind.allCases)
    func readsSeeWholeCommitsWhileWritesGrowTheStore(_ kind: EngineKind) throws {
        try withTemporaryStore { url in
            let engine = kind.engine(at: url, smallMap: true)
            try engine.open()
            defer { engine.close() }
            let batches = 24
            let batchSize = 50
            let writing = Locked(true)
            let failures = Locked<[String]>([])
            let group = DispatchGroup()
            for thread in 0..<4 {
                DispatchQueue.global().async(group: group) {
                    var last = 0
                    while writing.withValue({ $0 }) {
                        do {
                            let count = try engine.read { try collect($0, reverse: thread % 2 == 1).count }
                            if count % batchSize != 0 || count < last {
                                failures.withValue { $0.append("thread \(thread) saw \(count) pairs after \(last)") }
                            }
                            last = count
                        } catch {
                            failures.withValue { $0.append("thread \(thread): \(error)") }
                        }
                    }
                }
            }
            for batch in 0..<batches {
                try engine.write { writer in
                    for index in 0..<batchSize {
                        try writer.put([UInt8(batch), UInt8(index)], [UInt8](repeating: UInt8(index), count: 2048))
                    }
                }
            }
            writing.withValue { $0 = false }
            group.wait()
            #expect(failures.withValue { $0 } == [])
            #expect(try engine.read { try collect($0).count } == batches * batchSize)
        }
    }

    @Test(arguments: EngineKind.allCases)
    func closedEngineThrowsNotOpen(_ kind: EngineKind) throws {
        try withTemporaryStore { url in
            let engine = try kind.openEngine(at: url)
            engine.close()
            #expect(throws: StorageError.notOpen(store: engine.storeDescription)) { try engine.read { _ in 0 } }
            #expect(throws: StorageError.notOpen(store: engine.storeDescription)) { try engine.write { _ in 0 } }
        }
    }

    @Test(arguments: EngineKind.allCases)
    func destroyRemovesTheFiles(_ kind: EngineKind) throws {
        try withTemporaryStore { url in
            let engine = try kind.openEngine(at: url)
            try engine.write { try $0.put([1], [1]) }
            try engine.destroy()
            #expect(!FileManager.default.fileExists(atPath: url.path))
            try engine.open()
            defer { engine.close() }
            #expect(try engine.read { try collect($0) } == [])
        }
    }

    @Test(arguments: EngineKind.allCases)
    func aDirectoryWithUnrelatedFilesIsIncompatibleAndUntouched(_ kind: EngineKind) throws {
        try withTemporaryStore { url in
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data("my notes".utf8).write(to: url.appendingPathComponent("notes.txt"))
            let before = try snapshotOfFiles(at: url)
            let engine = kind.engine(at: url)
            #expect(throws: (any Error).self) { try engine.open() }
            #expect((try? engine.open()) == nil)
            do { try engine.open() } catch { #expect(isIncompatibleStore(error), "\(error)") }
            do { try engine.destroy() } catch { #expect(isIncompatibleStore(error), "\(error)") }
            #expect(try snapshotOfFiles(at: url) == before)
        }
    }

    @Test(arguments: EngineKind.allCases)
    func aFileInPlaceOfTheDirectoryIsIncompatibleAndUntouched(_ kind: EngineKind) throws {
        try withTemporaryStore { url in
            try Data("not a directory".utf8).write(to: url)
            try expectRefusedAndUntouched(kind.engine(at: url), at: url, "a plain file", destroying: false)
        }
    }

    /// LMDB allows one open handle per environment and process, LevelDB one per database (its
    /// `LOCK`): a second engine is refused with an error that says so, until the first closes.
    @Test(arguments: EngineKind.allCases)
    func aSecondEngineOnTheSameStoreIsRefusedAsInUseUntilTheFirstCloses(_ kind: EngineKind) throws {
        try withTemporaryStore { url in
            let first = try kind.openEngine(at: url)
            let second = kind.engine(at: url)
            do {
                try second.open()
                Issue.record("opened one store twice")
            } catch let StorageError.engine(_, message) {
                #expect(message.contains("in use"), "\(message)")
            }
            first.close()
            try second.open()
            second.close()
        }
    }

    @Test(arguments: EngineKind.allCases)
    func normalDurabilityIsNotDurableAndStillCommits(_ kind: EngineKind) throws {
        try withTemporaryStore { url in
            let engine = kind.engine(at: url, durability: .normal)
            #expect(!engine.isDurable)
            #expect(kind.engine(at: url).isDurable)
            try engine.open()
            try engine.write { try $0.put([1], [2]) }
            engine.close()
            try engine.open()
            defer { engine.close() }
            #expect(try engine.read { try $0.get([1]) } == [2])
        }
    }
}
