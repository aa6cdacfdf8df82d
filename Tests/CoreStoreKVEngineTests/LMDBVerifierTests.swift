import Foundation
import Testing
import CoreStoreKeyValue
import CoreStoreStorage
@testable import CoreStoreLMDB

/// liblmdb crashes on some damaged pages; `LMDBEngine(verifiesOnOpen: true)` walks every page
/// first. Whatever page of an environment is damaged, opening it is refused with an error, or
/// (for a page the trees do not use) every record reads back exactly.
@Suite("LMDB verification before opening")
struct LMDBVerifierTests {
    /// An environment with small values and values on an overflow page of their own, several
    /// branch levels and free pages; returns what it holds. (A value spanning several overflow
    /// pages has pages of bare data, whose damage only a checksum of the value could notice.)
    private func makeEnvironment(at url: URL) throws -> [[UInt8]: [UInt8]] {
        var model: [[UInt8]: [UInt8]] = [:]
        let engine = LMDBEngine(directoryURL: url)
        try engine.open()
        defer { engine.close() }
        var random = SeededGenerator(seed: 5)
        for batch in 0..<6 {
            try engine.write { writer in
                for index in 0..<300 {
                    let key: [UInt8] = [UInt8(batch), UInt8(index >> 8), UInt8(index & 0xFF)] + [UInt8](repeating: 0x41, count: Int(random.next() % 40))
                    let value = [UInt8](repeating: UInt8(index & 0xFF), count: index % 50 == 0 ? 3_000 : Int(random.next() % 200))
                    try writer.put(key, value)
                    model[key] = value
                }
            }
        }
        // Deletes leave free pages behind.
        try engine.write { writer in
            for key in model.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }).enumerated().filter({ $0.offset % 3 == 0 }).map(\.element) {
                try writer.delete(key)
                model[key] = nil
            }
        }
        return model
    }

    private func contents(of engine: LMDBEngine) throws -> [[UInt8]: [UInt8]] {
        try engine.read { reader in
            var found: [[UInt8]: [UInt8]] = [:]
            try reader.scan(from: [], to: [], reverse: false) { key, value in
                found[key] = value
                return true
            }
            return found
        }
    }

    /// How many keys are in one and not the other, or hold different values.
    private func differences(_ a: [[UInt8]: [UInt8]], _ b: [[UInt8]: [UInt8]]) -> Int {
        var count = 0
        for (key, value) in a where b[key] != value { count += 1 }
        for key in b.keys where a[key] == nil { count += 1 }
        return count
    }

    @Test
    func anIntactEnvironmentPassesAndOpens() throws {
        try withTemporaryStore { url in
            let model = try makeEnvironment(at: url)
            try LMDBVerifier.verify(directory: url)
            let engine = LMDBEngine(directoryURL: url, verifiesOnOpen: true)
            try engine.open()
            defer { engine.close() }
            #expect(try contents(of: engine) == model)
        }
    }

    /// Every page after the meta pages, zeroed and then filled with random bytes in turn.
    @Test(arguments: ["zeroed", "random"])
    func everyDamagedPageIsRefusedOrReadsBackExactly(damage: String) throws {
        try withTemporaryStore { url in
            let model = try makeEnvironment(at: url)
            let data = url.appendingPathComponent("data.mdb")
            let original = try Data(contentsOf: data)
            let pageSize = Int(original[40]) | Int(original[41]) << 8 | Int(original[42]) << 16 | Int(original[43]) << 24
            let pages = original.count / pageSize
            #expect(pages > 20, "the environment is too small to exercise branch pages")
            var random = SeededGenerator(seed: 9)
            var refused = 0
            for page in 2..<pages {
                var bytes = [UInt8](original)
                for offset in (page * pageSize)..<((page + 1) * pageSize) {
                    bytes[offset] = damage == "zeroed" ? 0 : UInt8(truncatingIfNeeded: random.next())
                }
                try? FileManager.default.removeItem(at: url.appendingPathComponent("lock.mdb"))
                try Data(bytes).write(to: data)
                let engine = LMDBEngine(directoryURL: url, verifiesOnOpen: true)
                do {
                    try engine.open()
                    let found = try contents(of: engine)
                    engine.close()
                    let different = differences(found, model)
                    #expect(different == 0, "page \(page) \(damage): opened, but \(different) records read back different")
                } catch StorageError.incompatibleStore(_, let reason) {
                    refused += 1
                    #expect(reason.hasPrefix("data.mdb is damaged"), "\(reason)")
                    #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent("lock.mdb").path), "a refused environment was opened")
                }
            }
            // Most pages hold the trees; only free pages may go unnoticed.
            #expect(refused > (pages - 2) / 2, "only \(refused) of \(pages - 2) damaged pages were refused")
        }
    }
}
