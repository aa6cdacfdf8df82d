import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// The totals of integer and double attributes that every commit keeps (``AttributeTotals``):
/// equal to their records after any mix of inserts, updates and deletes; an unfiltered,
/// ungrouped count, sum or average answers from them exactly what the reference evaluator
/// answers, and from a scan whenever they cannot tell; a generation without them is counted
/// by its first commit; damaged or wrong totals are reported.
@Suite("Attribute totals kept by commits")
struct AttributeTotalsTests {
    private typealias Storage = KeyValueStorage<MemoryKeyValueStore>

    private static let layout = KeyValueLayout(schema: KV.schema)

    private static func stored(_ engine: MemoryKeyValueStore) throws -> AttributeTotals? {
        try engine.read { try AttributeTotals.stored($0, layout: layout) }
    }

    private static func counted(_ engine: MemoryKeyValueStore) throws -> AttributeTotals {
        try engine.read { try AttributeTotals.counted($0, layout: layout) }
    }

    /// Stores `totals` in place of the stored ones (after the record counts in the `sequence`
    /// counter's value); `nil` leaves none, as a store of an earlier format has it.
    private static func storeTotals(_ totals: [UInt8]?, in engine: MemoryKeyValueStore) throws {
        let value = try #require(try engine.read { try $0.get(layout.sequenceCounterKey) })
        let stored = try RecordCounts.parts(ofCounterValue: value).rest
        let counts = Array(value[..<stored.startIndex])
        try engine.write { try $0.put(layout.sequenceCounterKey, counts + (totals ?? [])) }
    }

    /// Every request the totals may answer, over each entity and hierarchy of the fixture.
    static let requests: [AggregateRequest] = {
        var requests: [AggregateRequest] = []
        for function in [AggregateFunction.count, .sum, .average] {
            requests.append(AggregateRequest(entity: "Person", terms: [AggregateTerm(function, "age")]))
            requests.append(AggregateRequest(entity: "Person", terms: [AggregateTerm(function, "score")]))
            requests.append(AggregateRequest(entity: "Pet", terms: [AggregateTerm(function, "weight"), AggregateTerm(function, "tag")]))
            requests.append(AggregateRequest(entity: "Pet", includesSubentities: false, terms: [AggregateTerm(function, "weight")]))
            requests.append(AggregateRequest(entity: "Dog", terms: [AggregateTerm(function, "weight")]))
        }
        requests.append(AggregateRequest(entity: "Person", terms: [AggregateTerm(.sum, "score"), AggregateTerm(.count, "age"),
                                                                  AggregateTerm(.average, "age")]))
        requests.append(AggregateRequest(entity: "Person", terms: [AggregateTerm(.sum, "score")], offset: 1))
        requests.append(AggregateRequest(entity: "Person", terms: [AggregateTerm(.sum, "score")], limit: 0))
        return requests
    }()

    /// What the reference evaluator answers for `request` over the stored records.
    private static func reference(_ request: AggregateRequest, _ storage: Storage) throws -> [[Value]] {
        let records = try storage.read { try $0.fetch(FetchRequest(entity: request.entity, includesSubentities: request.includesSubentities)) }.records
        return try AggregateEvaluator(schema: KV.schema).rows(request, records: records)
    }

    /// Equal values, doubles to the bit (a NaN equal to a NaN, `0.0` not to `-0.0`).
    private static func identical(_ a: [[Value]], _ b: [[Value]]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { row, other in
            row.count == other.count && zip(row, other).allSatisfy { x, y in
                if case .double(let p) = x, case .double(let q) = y { return p.bitPattern == q.bitPattern || (p.isNaN && q.isNaN) }
                return x == y
            }
        }
    }

    /// Checks every request against the reference, and the stored totals against the records.
    private static func checkAnswers(_ storage: Storage, _ engine: MemoryKeyValueStore, _ step: String) throws {
        #expect(try stored(engine) == counted(engine), "\(step): stored totals differ from the records'")
        for request in requests {
            let answer = try storage.read { try $0.aggregate(request, schema: KV.schema) }
            let expected = try reference(request, storage)
            #expect(identical(answer, expected), "\(step): \(request.entity) \(request.terms.map { "\($0.function)(\($0.key))" }): \(answer) != \(expected)")
        }
    }

    /// A value of `pool` or `nil`, by `n`.
    private static func pick<T>(_ pool: [T?], _ n: Int) -> T? { pool[n % pool.count] }

    /// Doubles a total holds exactly, and others it must leave to a scan.
    private static let doubles: [Double?] = [0.5, 1, -2.25, 1e6, nil, 3 + 0x1p-16, -0.0, 0.1, 12.75, 1e12, .nan, .infinity, -7]
    private static let exactDoubles: [Double?] = [0.5, 1, -2.25, 1e6, nil, 3 + 0x1p-16, -0.0, 12.75, -7]
    private static let integers: [Int64?] = [0, 5, -7, nil, 1 << 40, -(1 << 41), 3]

    @Test("Commits keep the totals of their records, and answers match the reference", arguments: [false, true])
    func commitsKeepTotals(exactOnly: Bool) throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        let doubles = exactOnly ? Self.exactDoubles : Self.doubles
        var people: [RecordID] = [], pets: [RecordID] = []
        var nextTag: Int64 = 1
        for round in 0..<6 {
            var inserts: [Record] = []
            for n in 0..<12 {
                let k = round * 12 + n
                inserts.append(KV.person(-Int64(n + 1), "P\(k)", age: Self.pick(Self.integers, k), score: Self.pick(doubles, k * 5)))
                var pet = n % 2 == 0 ? KV.dog(-Int64(100 + n), "D\(k)", tag: nextTag) : KV.pet(-Int64(100 + n), "Q\(k)", tag: k % 3 == 0 ? nil : nextTag)
                pet.attributes[2] = Self.pick(doubles, k * 3 + 1).map(Value.double) ?? .null
                nextTag += 1
                inserts.append(pet)
            }
            let info = try storage.write(ChangeSet(inserts: inserts))
            people += inserts.filter { $0.id.entity == "Person" }.compactMap { info.permanentIDs[$0.id] }
            pets += inserts.filter { $0.id.entity != "Person" }.compactMap { info.permanentIDs[$0.id] }
            try Self.checkAnswers(storage, engine, "round \(round) inserts")

            // Updates of both kinds of values, then deletes of people and pets.
            let updated = people.enumerated().filter { $0.offset % 3 == round % 3 }.map(\.element)
            _ = try storage.write(ChangeSet(updates: updated.enumerated().map { i, id in
                RecordUpdate(record: KV.person(id.key, "U\(i)", age: Self.pick(Self.integers, i + round), score: Self.pick(doubles, i * 7 + round)),
                             changedKeys: ["name", "age", "score"])
            }))
            try Self.checkAnswers(storage, engine, "round \(round) updates")
            let deleted = Array(people.suffix(2)) + Array(pets.prefix(3))
            people.removeLast(2)
            pets.removeFirst(3)
            _ = try storage.write(ChangeSet(deletes: deleted))
            try Self.checkAnswers(storage, engine, "round \(round) deletes")
        }
        #expect(try KV.integrityProblems(storage).isEmpty)
        // With only values a total holds exactly, every request is answered from the totals.
        let fromTotals = try engine.read { snapshot in
            try Self.requests.map { try AttributeTotalsAnswer($0, schema: KV.schema)?.row(in: snapshot, layout: Self.layout) != nil }
        }
        if exactOnly {
            #expect(fromTotals.allSatisfy { $0 })
        } else {
            // 0.1, 1e12, NaN and infinity leave the double sums to a scan; counts stay answered.
            #expect(fromTotals.contains(false) && fromTotals.contains(true))
        }

        // Reopened, the totals are read back, and commits go on from them.
        storage.close()
        let reopened = try KV.openStore(engine)
        _ = try reopened.write(ChangeSet(inserts: [KV.person(-1, "Late", age: 9, score: 2.5)]))
        try Self.checkAnswers(reopened, engine, "after reopening")
    }

    @Test("A total is exact only where no order of addition can round or overflow")
    func exactness() {
        typealias Total = AttributeTotals.Total
        #expect(Total.units(of: 0.5) == 32_768)
        #expect(Total.units(of: -2.25) == -147_456)
        #expect(Total.units(of: 0x1p-16) == 1)
        #expect(Total.units(of: -0.0) == 0)
        #expect(Total.units(of: 0x1p-17) == nil)
        #expect(Total.units(of: 0.1) == nil)
        #expect(Total.units(of: 0x1p37) == nil)
        #expect(Total.units(of: 0x1p37 - 1) == (1 << 53) - (1 << 16))
        #expect(Total.units(of: .nan) == nil)
        #expect(Total.units(of: -.infinity) == nil)

        var doubles = Total()
        for value in [0x1p36, 0x1p36] { doubles.change(by: .double(value), isDouble: true, adding: true) }
        // The magnitudes reach 2⁵³ units: a key-ordered total could round, so no answer.
        #expect(doubles.exactDoubleSum == nil)
        doubles.change(by: .double(0x1p36), isDouble: true, adding: false)
        #expect(doubles.exactDoubleSum == 0x1p36)
        doubles.change(by: .double(0.1), isDouble: true, adding: true)
        #expect(doubles.exactDoubleSum == nil && doubles.count == 2)
        doubles.change(by: .double(0.1), isDouble: true, adding: false)
        #expect(doubles.exactDoubleSum == 0x1p36)
        // Just below 2⁵³ units, opposite values: exactly zero, and a positive zero.
        var opposite = Total()
        for value in [0x1p36 - 0x1p-16, -(0x1p36 - 0x1p-16), -0.0] { opposite.change(by: .double(value), isDouble: true, adding: true) }
        #expect(opposite.exactDoubleSum?.bitPattern == (0.0).bitPattern)

        var integers = Total()
        integers.change(by: .int(.max), isDouble: false, adding: true)
        #expect(integers.exactIntegerSum == .max)
        integers.change(by: .int(-1), isDouble: false, adding: true)
        // Summing in another order could pass Int64.max: left to the evaluator's scan.
        #expect(integers.exactIntegerSum == nil)
        integers.change(by: .int(.max), isDouble: false, adding: false)
        #expect(integers.exactIntegerSum == -1)
        // A value of another kind than the attribute's is counted but not summed.
        integers.change(by: .string("x"), isDouble: false, adding: true)
        #expect(integers.count == 2 && integers.exactIntegerSum == nil)
        integers.change(by: .null, isDouble: false, adding: true)
        #expect(integers.count == 2)
    }

    @Test("Sums that leave the exact cases come from a scan, with the evaluator's results and errors")
    func inexactSumsAreScanned() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        // Ages whose sum overflows only in some orders, then for certain.
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "A", age: .max, score: 0.1), KV.person(-2, "B", age: 1, score: 0.2)]))
        let sum = AggregateRequest(entity: "Person", terms: [AggregateTerm(.sum, "age")])
        #expect(throws: StorageError.self) { try storage.read { try $0.aggregate(sum, schema: KV.schema) } }
        #expect(throws: StorageError.self) { try Self.reference(sum, storage) }
        let scores = AggregateRequest(entity: "Person", terms: [AggregateTerm(.sum, "score"), AggregateTerm(.count, "age")])
        let answer = try storage.read { try $0.aggregate(scores, schema: KV.schema) }
        #expect(Self.identical(answer, [[.double(0.1 + 0.2), .int(2)]]))
        #expect(Self.identical(answer, try Self.reference(scores, storage)))
    }

    @Test("A generation without totals is answered by scans, and its first commit stores them")
    func missingTotalsAreCounted() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: KV.fortyPeople()))
        let expected = try Self.counted(engine)
        // As a store written before format version 4 has it: no totals.
        try Self.storeTotals(nil, in: engine)
        storage.close()
        let reopened = try KV.openStore(engine)
        #expect(try Self.stored(engine) == nil)
        for request in Self.requests {
            #expect(try engine.read { try AttributeTotalsAnswer(request, schema: KV.schema)?.row(in: $0, layout: Self.layout) } == nil)
            #expect(Self.identical(try reopened.read { try $0.aggregate(request, schema: KV.schema) }, try Self.reference(request, reopened)))
        }
        #expect(try KV.integrityProblems(reopened).isEmpty)
        // A commit that changes no total stores them all the same.
        _ = try reopened.write(ChangeSet(metadata: StoredMetadata(modelVersion: "V1", schemaHash: "kv-hash-1")))
        #expect(try Self.stored(engine) == expected)
        try Self.checkAnswers(reopened, engine, "after the first commit")
    }

    /// Little-endian 64-bit words, with a name where a string is given: the stored form.
    private static func words(_ parts: [Any]) -> [UInt8] {
        var bytes: [UInt8] = []
        for part in parts {
            if let name = part as? String {
                bytes += name.utf8
            } else if let word = part as? Int {
                withUnsafeBytes(of: Int64(word).littleEndian) { bytes += $0 }
            }
        }
        return bytes
    }

    /// Stored forms that no commit writes (no bytes at all is no totals): cut short, an unknown entity or attribute, an
    /// impossible total, bytes after the end, a name that is not UTF-8.
    static let damagedForms: [[UInt8]] = [
        [1, 0, 0],
        words([1, 6, "Nobody", 0]),
        words([1, 6, "Person", 1, 0, 1, 0, 0, 0, 0, 0]),
        words([1, 6, "Person", 1, 1, 1, 2, 0, 0, 0, 0]),
        words([1, 6, "Person", 1, 1, 1, 0, 0, 5, 0, 1]),
        words([1, 6, "Person", 1, 1, 1, 0, 0, 1, 0, 1, 7]),
        words([1, 60, "Person"]),
        words([-1]),
        // Huge, as if damaged: a count no store reaches, a magnitude its values cannot reach.
        words([1, 6, "Person", 1, 1, 1 << 62 + 1, 0, 0, 0, 0, 0]),
        words([1, 6, "Person", 1, 1, 1, 0, 0, 0, 1, 0]),
        words([1, 2]) + [0xC3, 0x28] + words([0]),
    ]

    @Test("A migration stores the counts and totals of what it wrote, so its first commit reads them")
    func migrationsStoreTotals() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: KV.fortyPeople() + [KV.dog(-100, "Rex", tag: 7)]))
        let records = try storage.read { try $0.fetch(FetchRequest(entity: "Person")).records + $0.fetch(FetchRequest(entity: "Pet")).records }
        storage.close()
        let migration = try KeyValueStorage(engine: engine).beginMigration(from: KV.schema, to: KV.schema)
        try migration.writeDestination(MergedChanges(inserts: Array(records.prefix(20))))
        try migration.writeDestination(MergedChanges(inserts: Array(records.dropFirst(20))))
        // An update inside the destination, as a relationship fix-up makes.
        let old = records[0]
        var new = old
        new.attributes[3] = .double(0.5)
        try migration.writeDestination(MergedChanges(updates: [RecordReplacement(old: old, new: new, changedKeys: ["score"])]))
        try migration.finish(metadata: StoredMetadata(modelVersion: "V1", schemaHash: "kv-hash-1"), counters: migration.sourceCounters)
        try engine.open() // a finished migration leaves the engine closed
        let destination = KeyValueLayout(schema: KV.schema, generation: 1)
        let stored = try engine.read { try AttributeTotals.stored($0, layout: destination) }
        #expect(stored != nil)
        #expect(try stored == engine.read { try AttributeTotals.counted($0, layout: destination) })
        #expect(try engine.read { try RecordCounts.stored($0, layout: destination) }?.byRoot == ["Person": 40, "Pet": 1])
        let reopened = try KV.openStore(engine)
        #expect(try KV.integrityProblems(reopened).isEmpty)
        let sum = AggregateRequest(entity: "Person", terms: [AggregateTerm(.sum, "score")])
        #expect(try engine.read { try AttributeTotalsAnswer(sum, schema: KV.schema)?.row(in: $0, layout: destination) } != nil)
        #expect(Self.identical(try reopened.read { try $0.aggregate(sum, schema: KV.schema) }, try Self.reference(sum, reopened)))
    }

    @Test("Damaged totals throw a clear error on a sum and are reported by the integrity check", arguments: damagedForms)
    func damagedTotals(_ bytes: [UInt8]) throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: KV.fortyPeople()))
        try Self.storeTotals(bytes, in: engine)
        do {
            _ = try storage.read { try $0.aggregate(AggregateRequest(entity: "Person", terms: [AggregateTerm(.sum, "score")]), schema: KV.schema) }
            Issue.record("a sum over damaged totals returned")
        } catch let error as StorageError {
            guard case .engine(let code, let message) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(code == KeyValueFormatError.damagedDataCode)
            #expect(message.contains("damaged attribute totals"))
        }
        let problems = try KV.integrityProblems(storage)
        #expect(problems.count == 1 && problems[0].hasPrefix("the attribute totals cannot be read"), "\(problems)")
    }

    @Test("Totals that disagree with the records are reported by the integrity check")
    func wrongTotalsAreReported() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: KV.fortyPeople()))
        var wrong = try #require(try Self.stored(engine))
        // One more score of 1.0 than the records hold.
        withUnsafePointer(to: KV.person(1, "Ghost", score: 1)) { record in
            var last: (name: String, index: Int)?
            wrong.change(by: record, adding: true, lastEntity: &last)
        }
        try Self.storeTotals(wrong.encoded(), in: engine)
        #expect(try KV.integrityProblems(storage) == ["Person: the stored total of its attribute score does not match its records"])
        // The stored form round-trips.
        #expect(try AttributeTotals.decode(wrong.encoded(), schema: KV.schema) == wrong)
        #expect(try AttributeTotals.decode(AttributeTotals(schema: KV.schema).encoded(), schema: KV.schema) == AttributeTotals(schema: KV.schema))
    }
}
