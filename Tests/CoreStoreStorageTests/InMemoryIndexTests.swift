import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreInMemory

/// A schema whose indexes cover every case of the in-memory indexes: `Thing` with indexed
/// `n` (integer), `d` (double) and `s` (string), a compound index on (`s`, `n`) and a unique
/// `code`; `SubThing`, a child with its own index on `w`; `Other`, an unrelated entity.
private enum Things {
    static let thingAttributes = [
        AttributeDescription(name: "n", type: .integer, isOptional: true, isIndexed: true),
        AttributeDescription(name: "d", type: .double, isOptional: true, isIndexed: true),
        AttributeDescription(name: "s", type: .string, isOptional: true, isIndexed: true),
        AttributeDescription(name: "code", type: .string, isOptional: true),
        AttributeDescription(name: "x", type: .double, isOptional: true),
        AttributeDescription(name: "t", type: .date, isOptional: true),
    ]

    static let schema = StoreSchema(modelVersion: "I1", schemaHash: "hash-i1", entities: [
        EntityDescription(name: "Thing", attributes: thingAttributes, relationships: [
            RelationshipDescription(name: "friends", kind: .toManyUnordered, destinationEntity: "Thing", inverseName: nil),
        ], indexes: [["s", "n"]], uniqueConstraints: [["code"]]),
        EntityDescription(name: "SubThing", parentName: "Thing", attributes: thingAttributes + [
            AttributeDescription(name: "w", type: .integer, isOptional: true),
        ], relationships: [
            RelationshipDescription(name: "friends", kind: .toManyUnordered, destinationEntity: "Thing", inverseName: nil),
        ], indexes: [["w"]]),
        EntityDescription(name: "Other", attributes: [
            AttributeDescription(name: "n", type: .integer, isOptional: true, isIndexed: true),
        ]),
    ])

    /// Numbers of every storage case that predicate equality relates: integers, doubles holding
    /// integers, booleans, signed zeros, NaN, values at the edge of the `Int64` range, decimals.
    static let numbers: [Value] = [
        .null, .int(0), .int(1), .int(-1), .int(2), .int(Int64.max), .int(Int64.min),
        .double(1.0), .double(-0.0), .double(0.0), .double(.nan), .double(0.5), .double(2.0),
        .double(9.223372036854775808e18), .double(-9.223372036854775808e18), .double(.infinity),
        .bool(true), .bool(false), .decimal(1), .decimal(Decimal(string: "0.5")!), .string("1"),
    ]

    /// Strings that differ by case, by Unicode normalization, or by kind.
    static let strings: [Value] = [
        .string("a"), .string("A"), .string("\u{e9}"), .string("e\u{301}"), .string(""), .string("b"), .null, .int(1),
    ]

    /// Dates, signed zeros and NaN included. A NaN date is unequal to itself even in `Value`'s
    /// `==`, so records are compared by identifier and rows with ``identical(_:_:)``.
    static let dates: [Value] = [
        .null, .date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: -0.0)),
        .date(Date(timeIntervalSinceReferenceDate: 1.5)), .date(Date(timeIntervalSinceReferenceDate: .nan)),
    ]

    /// Clean doubles (the fast aggregate path) whose sum depends on the order of addition.
    static let amounts: [Value] = [.double(1e16), .double(1), .double(-1e16), .double(0.1), .null, .double(3.25), .double(-0.0)]

    /// Record `i` of the fixture: every third one is a `SubThing`, every fifth one has no code.
    static func thing(_ i: Int, shift: Int = 0) -> Record {
        let isSub = i % 3 == 2
        var attributes: [Value] = [
            numbers[(i + shift) % numbers.count],
            numbers[(i * 7 + shift) % numbers.count],
            strings[(i * 5 + shift) % strings.count],
            i % 5 == 4 ? .null : .string("c\(i)"),
            amounts[i % amounts.count],
            dates[i % dates.count],
        ]
        if isSub { attributes.append(numbers[(i * 3) % numbers.count]) }
        let friends = [RecordID(entity: "Thing", key: Int64((i * 11) % 60 + 1))]
        return Record(id: RecordID(entity: isSub ? "SubThing" : "Thing", key: Int64(i + 1)), attributes: attributes, relationships: [friends])
    }

    static func other(_ key: Int64, _ n: Value) -> Record {
        Record(id: RecordID(entity: "Other", key: key), attributes: [n], relationships: [])
    }

    /// A state holding records 0..<60 and a few `Other`s.
    static func state() throws -> InMemoryState {
        var state = InMemoryState(schema: schema, metadata: nil)
        try state.apply(ChangeSet(inserts: (0..<60).map { thing($0) } + [other(100, .int(1)), other(101, .double(1))]))
        return state
    }

    static func compare(_ key: String, _ op: ComparisonOperator, _ operand: Operand, options: StringComparisonOptions = [], quantifier: Quantifier = .any) -> RecordPredicate {
        .comparison(Comparison([key], op, operand, options: options, quantifier: quantifier))
    }

    /// Predicates on indexed attributes (and some that must not use an index).
    static var predicates: [RecordPredicate] {
        var result: [RecordPredicate] = []
        for value in numbers {
            result.append(compare("n", .equal, .value(value)))
            result.append(compare("d", .equal, .value(value)))
            result.append(compare("w", .equal, .value(value)))
        }
        for value in strings {
            result.append(compare("s", .equal, .value(value)))
            result.append(compare("s", .equal, .value(value), options: .caseInsensitive))
            result.append(compare("s", .equal, .value(value), options: [.caseInsensitive, .diacriticInsensitive]))
        }
        for value in dates { result.append(compare("t", .equal, .value(value))) }
        result += [
            compare("n", .in, .list([.int(1), .double(2), .double(.nan)])),
            compare("n", .in, .list([])),
            compare("n", .in, .list(numbers)),
            compare("n", .in, .list([.int(0), .decimal(1)])),
            compare("d", .in, .list((0..<20).map { .int($0) })),
            compare("s", .in, .list([.string("A"), .string("\u{e9}")])),
            compare("s", .in, .list([.string("A")]), options: .caseInsensitive),
            compare("code", .equal, .value(.string("c7"))),
            compare("code", .in, .list([.string("c7"), .string("c8"), .null])),
            compare("n", .equal, .value(.int(1)), quantifier: .all),
            compare("n", .equal, .value(.int(1)), quantifier: .none),
            compare("n", .notEqual, .value(.int(1))),
            compare("n", .greaterOrEqual, .value(.int(1))),
            compare("s", .equal, .value(.string("a"))) && compare("n", .equal, .value(.int(1))),
            compare("s", .in, .list([.string("a"), .string("b")])) && compare("n", .in, .list([.int(0), .int(1), .double(2)])),
            compare("n", .equal, .value(.int(1))) && compare("n", .in, .list([.int(1), .int(2)])),
            compare("n", .equal, .value(.int(1))) && compare("n", .equal, .value(.int(2))),
            compare("n", .equal, .value(.int(1))) && compare("x", .greater, .value(.int(0))),
            .and([compare("d", .equal, .value(.double(1))), .and([compare("s", .notEqual, .value(.null))])]),
            compare("n", .equal, .value(.int(1))) || compare("s", .equal, .value(.string("a"))),
            !compare("n", .equal, .value(.int(1))),
            compare("n", .equal, .value(.int(1))) && .constant(false),
            compare("n", .equal, .value(.int(0))) && compare("friends", .equal, .value(.null)),
            compare("n", .equal, .value(.int(0))) && .comparison(Comparison(["friends"], .greater, .value(.int(0)), function: .count)),
            compare("n", .equal, .value(.int(0))) && .comparison(Comparison(["friends", "n"], .equal, .value(.int(1)))),
            compare("n", .equal, .value(.int(0))) && compare("s", .matches, .value(.string("a|b"))),
            compare("n", .equal, .value(.int(0))) && compare("s", .like, .value(.string("*"))),
        ]
        return result
    }

    /// The reference: every record of the requested entities, filtered by the evaluator, sorted
    /// by the sorter (or by key), windowed; no index involved.
    static func expected(_ state: InMemoryState, _ request: FetchRequest) throws -> [Record] {
        let entities = request.includesSubentities ? schema.entityAndDescendants(request.entity) : [request.entity]
        let all = entities.flatMap { state.tables[$0].map { Array($0.values) } ?? [] }
        let evaluator = PredicateEvaluator(schema: schema) { id in state.record(id) }
        var records = try all.filter { record in try request.predicate.map { try evaluator.evaluate($0, on: record) } ?? true }
        records.sort { $0.id.key < $1.id.key }
        try RecordSorter(schema: schema, sortDescriptors: request.sortDescriptors).sort(&records)
        return RecordWindow.apply(records, offset: request.offset, limit: request.limit)
    }

    /// Rows compared value by value, dates by bit pattern (so a NaN date equals itself).
    static func identical(_ a: [[Value]], _ b: [[Value]]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in
            x.count == y.count && zip(x, y).allSatisfy { u, v in
                if case .date(let p) = u, case .date(let q) = v {
                    return p.timeIntervalSinceReferenceDate.bitPattern == q.timeIntervalSinceReferenceDate.bitPattern
                }
                return u == v
            }
        }
    }

    /// Whether the reader answers `predicate` on `entity`'s own records from an index.
    static func usesIndex(_ state: InMemoryState, _ predicate: RecordPredicate, entity: String) -> Bool {
        guard let bindings = EqualityBindings(predicate) else { return false }
        return state.indexes.candidates(bindings, entity: entity) != nil
            && EqualityBindings.evaluatesWithoutThrowing(predicate, entity: entity, schema: schema)
    }

    /// Checks that the maintained indexes equal indexes built from scratch, and that the key
    /// order holds exactly the tables' records, in their current versions, in key order.
    static func expectIndexesMatchTables(_ state: InMemoryState, sourceLocation: SourceLocation = #_sourceLocation) {
        let rebuilt = rebuilt(state)
        #expect(state.indexes.entries == rebuilt.entries, sourceLocation: sourceLocation)
        func layout(_ indexes: InMemoryIndexes) -> [String: [Int64: [Int64]]] {
            indexes.keyOrder.chunks.mapValues { map in
                Dictionary(uniqueKeysWithValues: map.map { ($0.key, $0.value.map(\.id.key)) })
            }
        }
        #expect(layout(state.indexes) == layout(rebuilt), sourceLocation: sourceLocation)
        for (entity, table) in state.tables {
            let scanned = state.indexes.keyOrder.orderedChunks(of: entity).flatMap { $0 }
            let stored = table.values.sorted { $0.id.key < $1.id.key }
            let same = scanned.map(\.id) == stored.map(\.id) && identical(scanned.map(\.attributes), stored.map(\.attributes))
            #expect(same, "\(entity)", sourceLocation: sourceLocation)
        }
    }

    /// The indexes built from scratch from the state's tables.
    static func rebuilt(_ state: InMemoryState) -> InMemoryIndexes {
        var indexes = InMemoryIndexes(schema: schema)
        for table in state.tables.values {
            for record in table.values { indexes.add(record) }
        }
        return indexes
    }
}

@Suite("InMemoryStore indexes")
struct InMemoryIndexTests {
    /// Every fetch and count through the reader equals the evaluator's answer over all records.
    private func expectReaderMatchesReference(_ state: InMemoryState, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reader = InMemoryReader(state: state)
        for predicate in Things.predicates {
            for (entity, includesSubentities) in [("Thing", true), ("Thing", false), ("SubThing", true)] {
                let request = FetchRequest(entity: entity, includesSubentities: includesSubentities, predicate: predicate)
                let expected: Result<[Record], Error> = Result { try Things.expected(state, request) }
                let actual: Result<[Record], Error> = Result { try reader.fetch(request).records }
                switch (expected, actual) {
                case (.success(let e), .success(let a)):
                    #expect(a.map(\.id) == e.map(\.id) && a.map(\.id.entity) == e.map(\.id.entity), "\(entity) \(predicate)", sourceLocation: sourceLocation)
                    #expect(try reader.count(request) == e.count, "\(entity) \(predicate)", sourceLocation: sourceLocation)
                case (.failure(let e), .failure(let a)):
                    #expect("\(a)" == "\(e)", sourceLocation: sourceLocation)
                default:
                    Issue.record("\(entity) \(predicate): expected \(expected), got \(actual)", sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test func indexedFetchesEqualTheEvaluatorOnTrickyValues() throws {
        let state = try Things.state()
        Things.expectIndexesMatchTables(state)
        try expectReaderMatchesReference(state)
    }

    @Test func indexesAreUsedOnlyForOptionFreeEqualityAndIn() throws {
        let state = try Things.state()
        let n1 = Things.compare("n", .equal, .value(.int(1)))
        #expect(Things.usesIndex(state, n1, entity: "Thing"))
        #expect(Things.usesIndex(state, Things.compare("n", .in, .list([.int(1), .double(.nan)])), entity: "SubThing"))
        #expect(Things.usesIndex(state, Things.compare("code", .equal, .value(.string("c7"))), entity: "Thing"), "unique constraints are indexes")
        #expect(Things.usesIndex(state, Things.compare("w", .equal, .value(.int(1))), entity: "SubThing"))
        #expect(!Things.usesIndex(state, Things.compare("w", .equal, .value(.int(1))), entity: "Thing"), "a child's index does not cover its parent")
        #expect(Things.usesIndex(state, n1 && Things.compare("x", .greater, .value(.int(0))), entity: "Thing"))
        #expect(!Things.usesIndex(state, Things.compare("s", .equal, .value(.string("a")), options: .caseInsensitive), entity: "Thing"))
        #expect(!Things.usesIndex(state, Things.compare("n", .equal, .value(.decimal(1))), entity: "Thing"))
        #expect(!Things.usesIndex(state, Things.compare("n", .equal, .value(.int(1)), quantifier: .none), entity: "Thing"))
        #expect(!Things.usesIndex(state, Things.compare("x", .equal, .value(.int(1))), entity: "Thing"), "x is not indexed")
        #expect(!Things.usesIndex(state, n1 || Things.compare("s", .equal, .value(.string("a"))), entity: "Thing"))
        #expect(!Things.usesIndex(state, n1 && .comparison(Comparison(["friends", "n"], .equal, .value(.int(1)))), entity: "Thing"))
        #expect(!Things.usesIndex(state, n1 && Things.compare("nope", .equal, .value(.int(1))), entity: "Thing"))
    }

    @Test func keyedCandidatesSkipTheEvaluatorOnlyWhenThePredicateIsExactlyTheLookup() throws {
        let state = try Things.state()
        func exact(_ predicate: RecordPredicate) -> Bool? {
            EqualityBindings(predicate).flatMap { state.indexes.candidates($0, entity: "Thing") }?.keyedSatisfyPredicate
        }
        let n1 = Things.compare("n", .equal, .value(.int(1)))
        #expect(exact(n1) == true)
        #expect(exact(Things.compare("n", .in, .list([.int(1), .double(2)]))) == true)
        #expect(exact(n1 && Things.compare("n", .in, .list([.int(1), .int(2)]))) == true)
        #expect(exact(.and([n1, .constant(true)])) == true)
        #expect(exact(.and([n1, .constant(false)])) == false)
        #expect(exact(n1 && Things.compare("x", .greater, .value(.int(0)))) == false)
        #expect(exact(n1 && Things.compare("x", .equal, .value(.int(0)))) == false, "x is bound but not indexed")
        #expect(exact(n1 && !Things.compare("s", .equal, .value(.string("a")))) == false)
    }

    @Test func aCompoundIndexAnswersOnlyWhenAllItsAttributesAreBound() throws {
        let schema = StoreSchema(modelVersion: "P1", schemaHash: "hash-p1", entities: [
            EntityDescription(name: "Pair", attributes: [
                AttributeDescription(name: "a", type: .integer, isOptional: true),
                AttributeDescription(name: "b", type: .string, isOptional: true),
            ], indexes: [["a", "b"]]),
        ])
        var state = InMemoryState(schema: schema, metadata: nil)
        let values: [(Value, Value)] = [(.int(1), .string("x")), (.double(1), .string("y")), (.bool(true), .string("x")), (.decimal(1), .string("x")), (.int(2), .null)]
        try state.apply(ChangeSet(inserts: values.enumerated().map { i, pair in
            Record(id: RecordID(entity: "Pair", key: Int64(i + 1)), attributes: [pair.0, pair.1], relationships: [])
        }))
        let a1 = Things.compare("a", .equal, .value(.int(1))), bx = Things.compare("b", .equal, .value(.string("x")))
        #expect(EqualityBindings(a1).flatMap { state.indexes.candidates($0, entity: "Pair") } == nil)
        let both = try #require(EqualityBindings(a1 && bx).flatMap { state.indexes.candidates($0, entity: "Pair") })
        #expect(both.keyedSatisfyPredicate)
        #expect(both.keyed.flatMap { Array($0) }.sorted() == [1, 3])
        #expect(Array(both.unkeyed) == [4], "the decimal is always a candidate")
        let fetched = try InMemoryReader(state: state).fetch(FetchRequest(entity: "Pair", predicate: a1 && bx)).records
        #expect(fetched.map(\.id.key) == [1, 3, 4])
        let pairs = try InMemoryReader(state: state).fetch(FetchRequest(entity: "Pair", predicate: Things.compare("a", .in, .list([.int(1), .int(2)])) && Things.compare("b", .in, .list([.null, .string("y")])))).records
        #expect(pairs.map(\.id.key) == [2, 5])
    }

    @Test func aBucketHoldsOneKeyInlineAndStaysCanonical() {
        var bucket = IndexBucket.one(7)
        bucket.insert(7)
        #expect(bucket == .one(7))
        bucket.insert(3)
        bucket.insert(9)
        #expect(bucket.count == 3 && Set(bucket) == [3, 7, 9])
        let snapshot = bucket
        let removedSeven = bucket.remove(7), removedMissing = bucket.remove(42)
        #expect(removedSeven && removedMissing)
        #expect(Set(snapshot) == [3, 7, 9], "a copy keeps its keys")
        let removedThree = bucket.remove(3)
        #expect(removedThree && bucket == .one(9), "one key left is held inline")
        let removedNine = bucket.remove(9)
        #expect(!removedNine, "removing the last key empties the bucket")
    }

    @Test func oneIntegerHeldByOneRecordStaysInThePlainMapUntilShared() {
        let seven = KeyTuple(first: .integer(7), rest: []), name = KeyTuple(first: .string(UTF8Bytes("x")), rest: [])
        var entries = IndexEntries()
        entries.insert(1, seven)
        #expect(entries.singleIntegers == [7: 1] && entries.keyed.isEmpty)
        entries.insert(2, seven)
        #expect(entries.singleIntegers.isEmpty && entries.bucket(seven).map(Set.init) == [1, 2])
        entries.insert(3, name)
        entries.insert(4, nil)
        entries.remove(1, seven)
        #expect(entries.singleIntegers == [7: 2] && entries.bucket(seven) == .one(2), "back to the plain map")
        #expect(entries.bucket(name) == .one(3) && Array(entries.unkeyed) == [4])
        var rebuilt = IndexEntries()
        rebuilt.insert(4, nil)
        rebuilt.insert(3, name)
        rebuilt.insert(2, seven)
        #expect(entries == rebuilt)
        entries.remove(2, seven)
        entries.remove(3, name)
        entries.remove(4, nil)
        #expect(entries == IndexEntries())
    }

    @Test func keyOrderedChunksKeepEveryRecordInKeyOrder() {
        func record(_ key: Int64, _ tag: Int64 = 0) -> Record {
            Record(id: RecordID(entity: "Other", key: key), attributes: [.int(tag)], relationships: [])
        }
        var chunks = KeyOrderedChunks()
        let keys: [Int64] = [5, 200, 63, 64, 1, 1_000_000, 65, 2, 127, 128]
        for key in keys { chunks.add(record(key)) }
        #expect(chunks.orderedChunks(of: "Other").flatMap { $0 }.map(\.id.key) == keys.sorted())
        #expect(chunks.orderedChunks(of: "Other").map { $0.map(\.id.key) } == [[1, 2, 5, 63], [64, 65, 127], [128], [200], [1_000_000]])
        let snapshot = chunks
        chunks.remove(record(64))
        chunks.remove(record(999))
        chunks.remove(record(200))
        chunks.add(record(65, 7))
        chunks.remove(record(65))
        chunks.add(record(65, 8))
        #expect(chunks.orderedChunks(of: "Other").map { $0.map(\.id.key) } == [[1, 2, 5, 63], [65, 127], [128], [1_000_000]])
        #expect(chunks.orderedChunks(of: "Other")[1][0].attributes == [.int(8)], "the current version replaces the old one")
        #expect(snapshot.orderedChunks(of: "Other").flatMap { $0 }.map(\.id.key) == keys.sorted(), "a copy keeps its records")
        #expect(chunks.orderedChunks(of: "Nothing").isEmpty)
    }

    @Test func keyOrderPlacesDenseKeysInSlotsAndSortsTheOthers() {
        func records(_ keys: [Int64]) -> [Record] {
            keys.map { Record(id: RecordID(entity: "Other", key: $0), attributes: [.null], relationships: []) }
        }
        let cases: [[Int64]] = [[], [5], [3, 1, 2], [10, 12, 11, 14], [100, 1, 50_000, 7], [Int64.max, Int64.min, 0], [4, 4, 1]]
        for keys in cases {
            let r = records(keys)
            #expect(RecordKeyOrder.ascending(keys).map { keys[$0] } == keys.sorted())
            #expect(RecordKeyOrder.sorted(r).map(\.id.key) == keys.sorted())
        }
    }

    @Test func aPredicateThatThrowsOnAScanStillThrowsWhenNoIndexedRecordMatches() throws {
        let reader = InMemoryReader(state: try Things.state())
        let predicate = Things.compare("nope", .equal, .value(.int(1))) && Things.compare("n", .equal, .value(.int(12345)))
        #expect(throws: StorageError.unknownKey(key: "nope", entity: "Thing")) {
            try reader.fetch(FetchRequest(entity: "Thing", includesSubentities: false, predicate: predicate))
        }
    }

    @Test func updatesAndDeletesMoveRecordsBetweenIndexEntries() throws {
        var state = try Things.state()
        // Every record's values shift: each leaves its entries for others.
        try state.apply(ChangeSet(updates: (0..<60).filter { $0 % 2 == 0 }.map {
            RecordUpdate(record: Things.thing($0, shift: 3), changedKeys: ["n", "d", "s"])
        }))
        Things.expectIndexesMatchTables(state)
        try expectReaderMatchesReference(state)
        try state.apply(ChangeSet(deletes: (0..<60).filter { $0 % 3 == 1 }.map { Things.thing($0).id }))
        Things.expectIndexesMatchTables(state)
        try expectReaderMatchesReference(state)
        // Back to the original values, and the deleted records return.
        try state.apply(ChangeSet(
            inserts: (0..<60).filter { $0 % 3 == 1 }.map { Things.thing($0) },
            updates: (0..<60).filter { $0 % 2 == 0 && $0 % 3 != 1 }.map { RecordUpdate(record: Things.thing($0), changedKeys: ["n", "d", "s"]) }
        ))
        Things.expectIndexesMatchTables(state)
        #expect(state.indexes.entries == (try Things.state()).indexes.entries)
    }

    @Test func emptyEntriesAreDropped() throws {
        var state = InMemoryState(schema: Things.schema, metadata: nil)
        let empty = state.indexes.entries
        try state.apply(ChangeSet(inserts: (0..<20).map { Things.thing($0) }))
        #expect(state.indexes.entries != empty)
        try state.apply(ChangeSet(deletes: (0..<20).map { Things.thing($0).id }))
        #expect(state.indexes.entries == empty)
        #expect(state.indexes.keyOrder.chunks.values.allSatisfy { $0.isEmpty })
    }

    @Test func swappingUniqueValuesKeepsTheIndexesRight() throws {
        var state = try Things.state()
        var first = Things.thing(0), second = Things.thing(1)
        (first.attributes[3], second.attributes[3]) = (second.attributes[3], first.attributes[3])
        try state.apply(ChangeSet(updates: [RecordUpdate(record: first, changedKeys: ["code"]), RecordUpdate(record: second, changedKeys: ["code"])]))
        Things.expectIndexesMatchTables(state)
        let reader = InMemoryReader(state: state)
        let c1 = try reader.fetch(FetchRequest(entity: "Thing", predicate: Things.compare("code", .equal, .value(.string("c1"))))).records
        #expect(c1.map(\.id.key) == [1])
    }

    @Test func aFailedCommitLeavesTheStoreAndItsIndexesAsTheyWere() throws {
        let store = InMemoryStore()
        _ = try store.open(schema: Things.schema)
        _ = try store.write(ChangeSet(inserts: (0..<10).map { Things.thing($0) }))
        var duplicate = Things.thing(20)
        duplicate.attributes[3] = .string("c3")
        duplicate.attributes[0] = .int(424_242)
        #expect(throws: StorageError.self) { try store.write(ChangeSet(inserts: [duplicate])) }
        let request = FetchRequest(entity: "Thing", predicate: Things.compare("n", .equal, .value(.int(424_242))))
        #expect(try store.read { try $0.fetch(request).records }.isEmpty)
    }

    @Test func sortedAndWindowedIndexedFetchesEqualTheReference() throws {
        let state = try Things.state()
        let reader = InMemoryReader(state: state)
        let predicate = Things.compare("n", .in, .list([.int(0), .int(1), .int(2), .null]))
        for sorts in [[], [RecordSortDescriptor(key: "s", ascending: false)], [RecordSortDescriptor(key: "d", ascending: true)]] {
            for (offset, limit) in [(0, nil), (1, 3), (5, 100)] as [(Int, Int?)] {
                let request = FetchRequest(entity: "Thing", predicate: predicate, sortDescriptors: sorts, limit: limit, offset: offset)
                #expect(try reader.fetch(request).records.map(\.id) == Things.expected(state, request).map(\.id))
                #expect(try reader.count(request) == Things.expected(state, request).count)
            }
        }
    }

    /// Grouped and ungrouped aggregates through the reader equal the evaluator's rows over the
    /// same records, whether the reader computes them in one pass or falls back to the evaluator.
    @Test func aggregatesEqualTheEvaluator() throws {
        let state = try Things.state()
        let reader = InMemoryReader(state: state)
        let evaluator = AggregateEvaluator(schema: Things.schema)
        func term(_ function: AggregateFunction, _ key: String) -> AggregateTerm { AggregateTerm(function, key) }
        let requests: [AggregateRequest] = [
            AggregateRequest(entity: "Thing", terms: [term(.count, "x"), term(.sum, "x"), term(.average, "x"), term(.minimum, "x"), term(.maximum, "x")]),
            AggregateRequest(entity: "Thing", terms: [term(.sum, "d")]),
            AggregateRequest(entity: "Thing", terms: [term(.sum, "n")]),
            AggregateRequest(entity: "Thing", predicate: Things.compare("n", .in, .list([.int(0), .int(1), .int(2)])), terms: [term(.sum, "n"), term(.average, "n")]),
            AggregateRequest(entity: "Thing", terms: [term(.value, "s"), term(.count, "s"), term(.sum, "x"), term(.minimum, "n"), term(.maximum, "t")], groupBy: ["s"]),
            AggregateRequest(entity: "Thing", terms: [term(.value, "d"), term(.count, "d"), term(.sum, "x")], groupBy: ["d"],
                             sortDescriptors: [RecordSortDescriptor(key: "d", ascending: false)]),
            AggregateRequest(entity: "Thing", terms: [term(.value, "n"), term(.value, "s"), term(.count, "x"), term(.average, "x")], groupBy: ["s", "n"],
                             sortDescriptors: [RecordSortDescriptor(key: "n", ascending: false)], limit: 7, offset: 2),
            AggregateRequest(entity: "Thing", terms: [term(.value, "t"), term(.count, "t")], groupBy: ["t"]),
            AggregateRequest(entity: "Thing", includesSubentities: false, predicate: Things.compare("s", .equal, .value(.string("a"))),
                             terms: [term(.value, "n"), term(.sum, "x")], groupBy: ["n"]),
            AggregateRequest(entity: "SubThing", terms: [term(.value, "w"), term(.count, "w"), term(.minimum, "x")], groupBy: ["w"]),
            AggregateRequest(entity: "Thing", predicate: .constant(false), terms: [term(.count, "x"), term(.sum, "x")]),
            AggregateRequest(entity: "Thing", predicate: .constant(false), terms: [term(.value, "n"), term(.sum, "x")], groupBy: ["n"]),
            AggregateRequest(entity: "Thing", terms: [term(.value, "s"), term(.value, "x")]),
            // `x` groups small integers (0 from -0.0, 1), large and negative ones, and fractions.
            AggregateRequest(entity: "Thing", terms: [term(.value, "x"), term(.count, "x"), term(.minimum, "s"), term(.maximum, "n"), term(.sum, "x")], groupBy: ["x"]),
            AggregateRequest(entity: "Thing", terms: [term(.value, "s"), term(.value, "x"), term(.average, "x")], groupBy: ["x", "s"],
                             sortDescriptors: [RecordSortDescriptor(key: "s", ascending: false)]),
        ]
        for (i, request) in requests.enumerated() {
            let selected = try Things.expected(state, FetchRequest(entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate))
            // In key order, as the reader hands records to the evaluator (grouping NaN dates
            // depends on the order of the evaluator's input).
            let expected: Result<[[Value]], Error> = Result { try evaluator.rows(request, records: selected) }
            let actual: Result<[[Value]], Error> = Result { try reader.aggregate(request, schema: Things.schema) }
            switch (expected, actual) {
            case (.success(let e), .success(let a)):
                // Not `a == e` inside #expect: describing a NaN date on failure crashes.
                let same = Things.identical(a, e)
                #expect(same, "request \(i)")
            case (.failure(let e), .failure(let a)): #expect("\(a)" == "\(e)", "\(request)")
            default: Issue.record("\(request): expected \(expected), got \(actual)")
            }
        }
    }

    @Test func theOnePassAggregateTakesCleanValuesAndDeclinesTheRest() throws {
        let state = try Things.state()
        let records = try Things.expected(state, FetchRequest(entity: "Thing"))
        /// The one-pass rows, fed in descending key order; `nil` when declined.
        func onePass(_ request: AggregateRequest) -> [[Value]]? {
            guard var aggregate = KeyOrderedAggregate(request, schema: Things.schema) else { return nil }
            for record in records.reversed() where !aggregate.add(record) { return nil }
            return aggregate.rows()
        }
        let clean = AggregateRequest(entity: "Thing", terms: [AggregateTerm(.value, "s"), AggregateTerm(.count, "s"), AggregateTerm(.sum, "x")], groupBy: ["s"])
        #expect(onePass(clean) != nil)
        let byX = AggregateRequest(entity: "Thing", terms: [AggregateTerm(.value, "x"), AggregateTerm(.count, "x"), AggregateTerm(.maximum, "n")], groupBy: ["x", "s"])
        let byXRows = try #require(onePass(byX))
        #expect(Things.identical(byXRows, try AggregateEvaluator(schema: Things.schema).rows(byX, records: records)))
        // `n` holds decimals: grouping by it, or summing it, is left to the evaluator.
        #expect(onePass(AggregateRequest(entity: "Thing", terms: [AggregateTerm(.value, "n"), AggregateTerm(.count, "x")], groupBy: ["n"])) == nil)
        #expect(onePass(AggregateRequest(entity: "Thing", terms: [AggregateTerm(.sum, "n")])) == nil)
        // The double sum is added in key order: 1e16 + 1 - 1e16 ... is not 1e16 - 1e16 + 1.
        let rows = try #require(onePass(AggregateRequest(entity: "Thing", terms: [AggregateTerm(.sum, "x")])))
        let expectedSum = records.reduce(0.0) { total, record in
            if case .double(let d) = record.attributes[4] { return total + d }
            return total
        }
        let reversedSum = records.reversed().reduce(0.0) { total, record in
            if case .double(let d) = record.attributes[4] { return total + d }
            return total
        }
        #expect(expectedSum != reversedSum, "the fixture's sum depends on the order")
        #expect(rows == [[.double(expectedSum)]])
    }

    @Test func anIntegerSumThatOverflowsInKeyOrderThrowsLikeTheEvaluator() throws {
        var state = InMemoryState(schema: Things.schema, metadata: nil)
        let values: [Value] = [.int(Int64.max), .int(1), .int(-5)]
        try state.apply(ChangeSet(inserts: values.enumerated().map { i, n in
            var record = Things.thing(i * 3)
            record.attributes[0] = n
            return record
        }))
        let request = AggregateRequest(entity: "Thing", terms: [AggregateTerm(.sum, "n")])
        #expect(throws: StorageError.self) { try InMemoryReader(state: state).aggregate(request, schema: Things.schema) }
    }

    @Test func valueKeysAgreeWithPredicateEquality() {
        let values = Things.numbers + Things.strings + Things.dates
        for a in values {
            for b in values {
                let equal = PredicateEvaluator.equal(a, b)
                if let ka = ValueKey.equalityKey(a), let kb = ValueKey.equalityKey(b) {
                    #expect((ka == kb) == equal, "\(a) \(b)")
                } else if equal {
                    // Only a value without an equality key (a decimal) may equal another one.
                    #expect(ValueKey.equalityKey(a) == nil || ValueKey.equalityKey(b) == nil)
                    if case .decimal = a {} else if case .decimal = b {} else { Issue.record("\(a) == \(b) without keys") }
                }
                if let ka = ValueKey.orderKey(a), let kb = ValueKey.orderKey(b) {
                    #expect((ka == kb) == (Value.storageOrder(a, b) == 0), "\(a) \(b)")
                }
            }
        }
    }
}
