import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// Many identifiers are read in runs of close keys (one scan each) instead of one lookup each;
/// the answer must be the one the lookups give, identifier by identifier.
@Suite("Records read in runs of close keys")
struct RecordRunReadTests {
    /// People 1…40, pets 41…60 and dogs 61…80 (one hierarchy with the pets), keys 200, 205 and
    /// 300 (person, pet, dog) far from the rest, and `Int64.max` a person.
    private func store() throws -> KeyValueStorage<MemoryKeyValueStore> {
        let storage = try KV.openStore()
        let records = (1...40).map { KV.person($0, "p\($0)") } + (41...60).map { KV.pet($0, "t\($0)") }
            + (61...80).map { KV.dog($0, "d\($0)") } + [KV.person(200, "far"), KV.pet(205, "far"), KV.dog(300, "far"), KV.person(.max, "last")]
        _ = try storage.write(ChangeSet(inserts: records))
        return storage
    }

    /// The identifiers asked: every key 0…90 under each entity (missing keys, keys of another
    /// hierarchy, ancestors of a dog, a dog asked as a pet), the far keys, repeats, shuffled.
    private static func questions(seed: UInt64) -> [RecordID] {
        var ids: [RecordID] = []
        for key in Int64(0)...90 {
            for entity in ["Person", "Pet", "Dog"] { ids.append(RecordID(entity: entity, key: key)) }
        }
        ids += [RecordID(entity: "Person", key: 200), RecordID(entity: "Pet", key: 205), RecordID(entity: "Pet", key: 300),
                RecordID(entity: "Dog", key: 205), RecordID(entity: "Person", key: .max), RecordID(entity: "Person", key: .max - 1),
                RecordID(entity: "Unknown", key: 3), RecordID(entity: "Person", key: 7), RecordID(entity: "Dog", key: 70)]
        var generator = SeededGenerator(seed: seed)
        ids.shuffle(using: &generator)
        return ids
    }

    @Test("Many identifiers in any order get what one lookup each gets", arguments: [1, 2, 3] as [UInt64])
    func runsAnswerAsLookupsDo(seed: UInt64) throws {
        let storage = try store()
        let ids = Self.questions(seed: seed)
        #expect(ids.count >= KeyValueStorageReader.fewestRecordsReadInRuns)
        let together = try storage.read { try $0.records(ids) }
        let oneByOne = try storage.read { reader in try ids.map { try reader.records([$0])[0] } }
        #expect(together == oneByOne)
        // 40 people, 20 pets and 20 dogs asked as pets, 20 dogs; then person 200, pet 205, dog
        // 300 asked as a pet, the last person, person 7 and dog 70 again.
        #expect(together.compactMap { $0 }.count == 106)
    }

    @Test("A commit's merge reads the records it deletes in runs and removes exactly them")
    func bulkDeleteWithoutBases() throws {
        let storage = try store()
        let doomed = (10...30).map { RecordID(entity: "Person", key: $0) } + [RecordID(entity: "Dog", key: 65), RecordID(entity: "Dog", key: 300)]
        _ = try storage.write(ChangeSet(deletes: doomed.sorted { $0.key < $1.key }))
        let left = try storage.read { try $0.records((0...400).map { RecordID(entity: "Pet", key: $0) } + (0...40).map { RecordID(entity: "Person", key: $0) }) }
        let people: [Int64] = (1...40).filter { !(10...30).contains($0) }
        let pets: [Int64] = (41...80).filter { $0 != 65 } + [205]
        let found: [Int64] = left.compactMap { $0?.id.key }.sorted()
        #expect(found == people + pets)
    }
}
