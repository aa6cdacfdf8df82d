import Testing
@testable import CoreStore
import CoreStoreStorage

@Suite("Identity map")
struct IdentityMapTests {
    /// Random inserts, replacements and removals agree with a dictionary at every step,
    /// across growth, vacated slots and the rebuilds that clear them.
    @Test(arguments: [1, 7, 42])
    func agreesWithADictionary(seed: UInt64) {
        let owner = CoreStoreObject(asMeta: ())
        var objects: [CoreStoreObject] = (0..<8).map { _ in CoreStoreObject(asMeta: ()) }
        objects.append(owner)
        var map = IdentityMap()
        var reference: [ObjectID: CoreStoreObject] = [:]
        var random = SplitMix64(seed: seed)
        for step in 0..<20_000 {
            let id = ObjectID(storeID: random.next() % 3, recordID: RecordID(entity: "E", key: Int64(random.next() % 700)))
            switch random.next() % 3 {
            case 0, 1:
                let object = objects[Int(random.next() % UInt64(objects.count))]
                map[id] = object
                reference[id] = object
            default:
                map[id] = nil
                reference[id] = nil
            }
            #expect(map.count == reference.count)
            if step % 500 == 0 {
                for (key, value) in reference { #expect(map[key] === value) }
            }
        }
        for storeID in 0..<3 as Range<UInt64> {
            for key in 0..<700 as Range<Int64> {
                let id = ObjectID(storeID: storeID, recordID: RecordID(entity: "E", key: key))
                #expect(map[id] === reference[id])
            }
        }
    }

    /// Stores hand out consecutive keys: however many, and from several stores, they must not
    /// pile up into one long run of slots (every miss would scan it), and removing
    /// a block of them leaves the rest found.
    @Test func consecutiveKeysStayInShortRuns() {
        var map = IdentityMap()
        let object = CoreStoreObject(asMeta: ())
        for storeID in 1...3 as ClosedRange<UInt64> {
            for key in 1...100_000 as ClosedRange<Int64> {
                map[ObjectID(storeID: storeID, recordID: RecordID(entity: "E", key: key))] = object
            }
        }
        #expect(map.count == 300_000)
        #expect(map.longestRun < 2_000, "longest run \(map.longestRun)")
        for key in 40_000..<60_000 as Range<Int64> {
            map[ObjectID(storeID: 2, recordID: RecordID(entity: "E", key: key))] = nil
        }
        #expect(map.count == 280_000)
        #expect(map[ObjectID(storeID: 2, recordID: RecordID(entity: "E", key: 39_999))] === object)
        #expect(map[ObjectID(storeID: 2, recordID: RecordID(entity: "E", key: 50_000))] == nil)
        #expect(map[ObjectID(storeID: 3, recordID: RecordID(entity: "E", key: 50_000))] === object)
    }

    /// A sliding window of keys (one removed, one added, again and again: a list whose oldest
    /// rows are deleted as new ones arrive) keeps a table of constant size: the vacated slots
    /// are cleared by rebuilds, and every held key is found throughout.
    @Test func removalsDoNotGrowTheTableForever() {
        var map = IdentityMap()
        let objects = (0..<1_000).map { _ in CoreStoreObject(asMeta: ()) }
        func id(_ key: Int64) -> ObjectID { ObjectID(storeID: 1, recordID: RecordID(entity: "E", key: key)) }
        for key in 0..<1_000 as Range<Int64> { map[id(key)] = objects[Int(key)] }
        var largest = map.capacity
        for oldest in 0..<100_000 as Range<Int64> {
            #expect(map.removeObject(storeID: 1, key: oldest) === objects[Int(oldest % 1_000)])
            map[id(oldest + 1_000)] = objects[Int(oldest % 1_000)]
            largest = max(largest, map.capacity)
            if oldest % 9_973 == 0 {
                for key in oldest + 1...oldest + 1_000 { #expect(map[id(key)] === objects[Int(key % 1_000)]) }
                #expect(map[id(oldest)] == nil)
            }
        }
        #expect(map.count == 1_000)
        #expect(largest <= 4_096, "the table grew to \(largest) slots for 1,000 objects")
        #expect(map.removeObject(storeID: 1, key: 5) == nil)
        #expect(map.removeObject(storeID: 2, key: 100_500) == nil)
    }

    /// A batch of inserts whose known keys are handed over at its end: before the end they
    /// are not known (nobody may ask then), after it they are, with the keys known before,
    /// and removing one afterwards forgets it as usual.
    @Test func aBatchMakesItsKeysKnownAtItsEnd() {
        var map = IdentityMap()
        let objects = (0..<100).map { _ in CoreStoreObject(asMeta: ()) }
        map.insert(objects[0], storeID: 2, key: 1)
        map.beginDeferringKnownKeys()
        for key in 2..<100 as Range<Int64> { map.insert(objects[Int(key)], storeID: 2, key: key) }
        #expect(map.knownKeys(of: 2)?.count == 1)
        map.endDeferringKnownKeys(Array(1..<100), of: 2)
        let known = map.knownKeys(of: 2)
        #expect(known?.count == 99)
        #expect((1..<100 as Range<Int64>).allSatisfy { known?.contains($0) == true })
        #expect(map.knownKeys(of: 3) == nil)
        map[ObjectID(storeID: 2, recordID: RecordID(entity: "E", key: 50))] = nil
        #expect(map.knownKeys(of: 2)?.contains(50) == false)
        #expect(map.knownKeys(of: 2)?.count == 98)
        // Inserts after the batch are known at once again.
        map.insert(objects[0], storeID: 3, key: 7)
        #expect(map.knownKeys(of: 3)?.contains(7) == true)
    }

    @Test func dropsOnlyTheObjectsNobodyElseHolds() {
        var map = IdentityMap()
        var kept: [CoreStoreObject] = []
        for key in 0..<1_000 as Range<Int64> {
            let object = CoreStoreObject(asMeta: ())
            if key % 10 == 0 { kept.append(object) }
            map[ObjectID(storeID: 1, recordID: RecordID(entity: "E", key: key))] = object
        }
        map.removeUnreferenced(keepingRoomFor: 0)
        #expect(map.count == kept.count)
        for (i, object) in kept.enumerated() {
            #expect(map[ObjectID(storeID: 1, recordID: RecordID(entity: "E", key: Int64(i * 10)))] === object)
        }
        #expect(map[ObjectID(storeID: 1, recordID: RecordID(entity: "E", key: 1))] == nil)
    }

    /// Through the API: an object the caller holds is the same instance however many objects
    /// the read-only context made and dropped since.
    @Test(arguments: StoreKind.allCases)
    func heldObjectsStayTheSameInstanceAcrossSweeps(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try stack.perform(synchronous: { transaction in
            for i in 0..<3_000 { transaction.create(Into<Person>()).age = i }
        })
        let held = try #require(try stack.fetchOne(From<Person>().where(\.$age == 7)))
        for _ in 0..<4 {
            let everyone = try stack.fetchAll(From<Person>())
            #expect(everyone.count == 3_000)
            #expect(everyone.contains { $0 === held })
        }
        #expect(try stack.fetchOne(From<Person>().where(\.$age == 7)) === held)
    }

    /// Through the API: objects the caller let go of are freed by a later fetch's sweep, even
    /// though a fetch whose own objects are nearly all the context holds skips its sweep.
    @Test(arguments: StoreKind.allCases)
    func droppedObjectsAreFreedByALaterSweep(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try stack.perform(synchronous: { transaction in
            for i in 0..<3_000 { transaction.create(Into<Person>()).age = i }
        })
        weak var dropped: CoreStoreObject?
        do {
            let firstHalf = try stack.fetchAll(From<Person>().where(\.$age < 1_500))
            #expect(firstHalf.count == 1_500)
            dropped = firstHalf.first
        }
        for _ in 0..<3 {
            #expect(try stack.fetchAll(From<Person>().where(\.$age >= 1_500)).count == 1_500)
        }
        #expect(dropped == nil)
    }
}

@Suite("Objects kept past their transaction")
struct ObjectsPastTheirTransactionTests {
    /// An object returned from a finished transaction still reads its related objects, and
    /// neither keeps the transaction's context alive once let go (no context ↔ object cycle).
    @Test(arguments: StoreKind.allCases)
    func keptObjectsReadAndDoNotLeakTheirContext(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        weak var context: ObjectContext?
        do {
            let dog = try stack.perform(synchronous: { t -> Dog in
                let ann = t.create(Into<Person>())
                ann.name = "Ann"
                let dog = t.create(Into<Dog>())
                dog.master = ann
                return dog
            })
            context = dog.context
            #expect(context != nil)
            #expect(dog.master?.name == "Ann")
            #expect(dog.master?.pets.count == 1)
        }
        #expect(context == nil)
    }
}
