import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// An insert whose record key is already stored is refused, whether the commit checks its
/// inserts one lookup at a time (few inserts) or with one scan above the first of them (many).
@Suite("Inserts of keys already stored")
struct InsertKeyCheckTests {
    /// A store holding the people with keys `stored`, inserted under those permanent keys.
    private func store(holding stored: [Int64]) throws -> KeyValueStorage<MemoryKeyValueStore> {
        let storage = try KV.openStore()
        _ = try storage.write(ChangeSet(inserts: stored.map { KV.person($0, "stored \($0)") }))
        return storage
    }

    private func people(_ storage: KeyValueStorage<MemoryKeyValueStore>) throws -> [Record] {
        let request = FetchRequest(entity: "Person")
        return try storage.read { try $0.fetch(request).completed(for: request, schema: KV.schema) }
    }

    /// Insert counts below, at and above the count from which a scan replaces the lookups.
    static let insertCounts = [1, 2, KeyValueCommit.fewestInsertsCheckedByScan - 1, KeyValueCommit.fewestInsertsCheckedByScan, 40]

    @Test("An insert of a taken key throws and writes nothing, at every insert count", arguments: insertCounts)
    func takenKeyIsRefused(count: Int) throws {
        // Keys 100… ascending; the stored record sits on the last of them.
        let keys = (0..<Int64(count)).map { 100 + $0 }
        let storage = try store(holding: [5, keys.last!])
        let before = try people(storage)
        #expect(throws: StorageError.self) {
            try storage.write(ChangeSet(inserts: keys.map { KV.person($0, "new \($0)") }))
        }
        #expect(try people(storage) == before)
    }

    @Test("A stored record above the inserted keys, but on none of them, does not refuse them", arguments: insertCounts)
    func recordAboveIsNoConflict(count: Int) throws {
        let keys = (0..<Int64(count)).map { 100 + 2 * $0 }
        let storage = try store(holding: [5, 101, 10_000])
        _ = try storage.write(ChangeSet(inserts: keys.map { KV.person($0, "new \($0)") }))
        #expect(try people(storage).map(\.id.key).sorted() == ([5, 101, 10_000] + keys).sorted())
    }

    @Test("Keys that do not ascend are each looked up, and a taken one among them is refused", arguments: insertCounts)
    func descendingKeys(count: Int) throws {
        // The taken key is the last and lowest: a scan from the first key would miss it.
        let keys = (0..<Int64(count)).map { 500 - $0 }
        let storage = try store(holding: [keys.last!])
        #expect(throws: StorageError.self) {
            try storage.write(ChangeSet(inserts: keys.map { KV.person($0, "new \($0)") }))
        }
        #expect(try people(storage) == [KV.person(keys.last!, "stored \(keys.last!)")])
    }

    /// Inserts of two hierarchies taking turns (people; pets and dogs, which share the pets'
    /// key range): the runs are told apart by hierarchy, not by entity, and a taken key in
    /// either is refused.
    @Test("Interleaved entities keep one run per hierarchy", arguments: [false, true])
    func interleavedHierarchies(petsAscend: Bool) throws {
        // Pets and dogs each ascend; together they ascend only when `petsAscend`.
        let count = Int64(KeyValueCommit.fewestInsertsCheckedByScan) * 2
        var inserts: [Record] = []
        for i in 0..<count {
            inserts.append(KV.person(1_000 + i, "person \(i)"))
            inserts.append(i.isMultiple(of: 2)
                ? KV.pet(petsAscend ? 2_000 + 2 * i : 2_000 + i, "pet \(i)")
                : KV.dog(petsAscend ? 2_000 + 2 * i : 1_500 + i, "dog \(i)"))
        }
        // The taken key: the last pet-hierarchy insert's when the run ascends (a scan from the
        // first key finds it), the lowest dog's otherwise (only a lookup finds it).
        let taken = petsAscend ? inserts.last!.id : inserts[3].id
        let storage = try KV.openStore()
        _ = try storage.write(ChangeSet(inserts: [KV.pet(taken.key, "stored")]))
        #expect(throws: StorageError.self) { try storage.write(ChangeSet(inserts: inserts)) }
        #expect(try people(storage).isEmpty)

        // Without the taken key, every insert is written.
        let free = inserts.filter { $0.id.key != taken.key }
        let clean = try KV.openStore()
        _ = try clean.write(ChangeSet(inserts: free))
        #expect(try people(clean).count == Int(count))
        let request = FetchRequest(entity: "Pet")
        let pets = try clean.read { try $0.fetch(request).completed(for: request, schema: KV.schema) }
        #expect(pets.map(\.id.key).sorted() == free.filter { $0.id.entity != "Person" }.map(\.id.key).sorted())
    }
}
