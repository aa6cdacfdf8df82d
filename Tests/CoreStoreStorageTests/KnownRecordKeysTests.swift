import Testing
import CoreStoreStorage

@Suite("Known record keys")
struct KnownRecordKeysTests {
    /// Random inserts and removals agree with a `Set` at every step, across pages.
    @Test(arguments: [3, 11])
    func agreesWithASet(seed: UInt64) {
        var keys = KnownRecordKeys()
        var reference = Set<Int64>()
        var random = seed
        for step in 0..<20_000 {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let key = Int64((random >> 33) % 100_000)
            if (random >> 20) % 3 == 0 {
                keys.remove(key)
                reference.remove(key)
            } else {
                keys.insert(key)
                reference.insert(key)
            }
            #expect(keys.count == reference.count)
            if step % 1_000 == 0 {
                #expect((0..<100_000).filter { keys.contains($0) }.count == reference.count)
            }
        }
        for key in 0..<100_000 as Range<Int64> where keys.contains(key) != reference.contains(key) {
            Issue.record("key \(key): contains \(keys.contains(key)), the set says \(reference.contains(key))")
        }
    }

    /// Inserting a batch is inserting its keys one by one: across pages, out of order, with
    /// repeats, known keys and keys outside the tracked range among them; and a snapshot taken
    /// before the batch does not see it.
    @Test(arguments: [5, 13])
    func aBatchIsItsKeysOneByOne(seed: UInt64) {
        var batched = KnownRecordKeys(), single = KnownRecordKeys()
        for key in [7, 40_000] as [Int64] {
            batched.insert(key)
            single.insert(key)
        }
        let snapshot = batched
        var random = seed
        var keys: [Int64] = [-3, KnownRecordKeys.keyLimit, 7]
        for _ in 0..<5_000 {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            keys.append(Int64((random >> 33) % 200_000))
            // Runs of consecutive keys, as a fetch returns them.
            if (random >> 20) % 4 == 0 { keys.append(keys[keys.count - 1] + 1) }
        }
        keys.withUnsafeBufferPointer { batched.insert(contentsOf: $0) }
        for key in keys { single.insert(key) }
        #expect(batched.count == single.count)
        for key in -5..<200_005 as Range<Int64> where batched.contains(key) != single.contains(key) {
            Issue.record("key \(key): the batch says \(batched.contains(key)), one by one \(single.contains(key))")
        }
        #expect(snapshot.count == 2)
        #expect(snapshot.contains(7) && snapshot.contains(40_000))
        #expect(!keys.contains { $0 != 7 && $0 != 40_000 && snapshot.contains($0) })
    }

    /// A copy is a snapshot: the original's later inserts and removals, in pages the copy
    /// shares, leave it as it was; and the copy's own changes leave the original alone.
    @Test func aCopyIsASnapshot() {
        var keys = KnownRecordKeys()
        for key in [1, 2, 40_000, 70_000] as [Int64] { keys.insert(key) }
        var snapshot = keys
        keys.insert(3)
        keys.remove(2)
        keys.insert(40_001)
        keys.insert(200_000)
        #expect([1, 2, 40_000, 70_000].allSatisfy { snapshot.contains($0) })
        #expect(![3, 40_001, 200_000].contains { snapshot.contains($0) })
        #expect(keys.contains(3) && !keys.contains(2) && keys.contains(40_001) && keys.contains(200_000))
        snapshot.remove(1)
        #expect(!snapshot.contains(1))
        #expect(keys.contains(1))
    }

    /// Keys outside the tracked range are never reported known: their records are read whole.
    @Test(arguments: [-1, Int64.min, KnownRecordKeys.keyLimit, Int64.max])
    func keysOutsideTheRangeAreNotTracked(key: Int64) {
        var keys = KnownRecordKeys()
        keys.insert(key)
        #expect(!keys.contains(key))
        #expect(keys.isEmpty)
        keys.remove(key)
        #expect(!keys.contains(key))
        #expect(keys.count == 0)
    }

    /// A hint says what may be left out, not what is asked: requests that differ only in their
    /// hints are equal and hash alike.
    @Test func hintsDoNotChangeARequestsIdentity() {
        var known = KnownRecordKeys()
        known.insert(5)
        let plain = FetchRequest(entity: "Person")
        let hinted = FetchRequest(entity: "Person", knownRecords: known)
        #expect(plain == hinted)
        #expect(plain.hashValue == hinted.hashValue)
        #expect(FetchRequest(entity: "Person", limit: 1, knownRecords: known) != hinted)
    }
}
