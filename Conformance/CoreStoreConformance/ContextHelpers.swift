import Foundation
import CoreStoreStorage

/// The state a case has written: every record by permanent key.
struct World {
    var records: [Int64: Record] = [:]
    var schema: StoreSchema = Fixtures.schema

    /// The records, in key order.
    var all: [Record] { records.keys.sorted().compactMap { records[$0] } }

    /// The reference answer to `request`: entity, predicate, sort and window applied with
    /// ``PredicateEvaluator``, ``RecordSorter`` and ``RecordWindow``.
    func reference(_ request: FetchRequest) throws -> [Record] {
        let entities = Set(request.includesSubentities ? schema.entityAndDescendants(request.entity) : [request.entity])
        var selected = all.filter { entities.contains($0.id.entity) }
        if let predicate = request.predicate {
            let snapshot = records
            let evaluator = PredicateEvaluator(schema: schema) { id in snapshot[id.key] }
            selected = try selected.filter { try evaluator.evaluate(predicate, on: $0) }
        }
        try RecordSorter(schema: schema, sortDescriptors: request.sortDescriptors).sort(&selected)
        return RecordWindow.apply(selected, offset: request.offset, limit: request.limit)
    }

    /// The reference rows of an aggregate request.
    func referenceRows(_ request: AggregateRequest) throws -> [[Value]] {
        let selected = try reference(FetchRequest(entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate))
        return try AggregateEvaluator(schema: schema).rows(request, records: selected)
    }

    func permanentID(_ temporary: RecordID, _ map: [RecordID: RecordID]) -> RecordID { map[temporary] ?? temporary }
}

extension ConformanceContext {
    /// Writes `changes`, records the result in `world` (inserts resolved to permanent
    /// identifiers) and returns the commit info.
    @discardableResult
    func commit(_ store: any StorageInterface, _ changes: ChangeSet, into world: inout World) throws -> CommitInfo {
        let info = try store.write(changes)
        try expectEqual(info.permanentIDs.count, changes.inserts.filter(\.id.isTemporary).count, "number of permanent identifiers returned")
        func resolve(_ record: Record) -> Record {
            var r = record
            r.id = info.permanentIDs[r.id] ?? r.id
            r.relationships = r.relationships.map { $0.map { info.permanentIDs[$0] ?? $0 } }
            return r
        }
        for record in changes.inserts { let r = resolve(record); world.records[r.id.key] = r }
        try expectEqual(info.changes.inserts.map(\.id), changes.inserts.map { resolve($0).id }, "inserted records returned, in the change set's order")
        // An update changes only its changed keys (relationships replaced whole: the cases that
        // merge to-many changes or rely on inverse upkeep check the store directly).
        for update in changes.updates {
            let r = resolve(update.record)
            guard var stored = world.records[r.id.key], let entity = world.schema.entity(named: r.id.entity) else { continue }
            for (i, attribute) in entity.attributes.enumerated() where update.changedKeys.contains(attribute.name) { stored.attributes[i] = r.attributes[i] }
            for (i, relationship) in entity.relationships.enumerated() where update.changedKeys.contains(relationship.name) { stored.relationships[i] = r.relationships[i] }
            world.records[r.id.key] = stored
        }
        for id in changes.deletes { world.records[id.key] = nil }
        return info
    }

    /// A new open store holding `records` (written in one commit), and the written world.
    func seeded(_ records: [Record]) throws -> (any StorageInterface, World) {
        let store = try openStore()
        var world = World()
        try commit(store, ChangeSet(inserts: records), into: &world)
        return (store, world)
    }

    /// The final records the store answers for `request`.
    func fetch(_ store: any StorageInterface, _ request: FetchRequest, schema: StoreSchema = Fixtures.schema) throws -> [Record] {
        try store.read { try $0.fetch(request).completed(for: request, schema: schema) }
    }

    /// Fails unless the store answers `request` exactly like the reference (same records, same
    /// order, same values), and its count agrees.
    func expectSameFetch(_ store: any StorageInterface, _ world: World, _ request: FetchRequest) throws {
        let expected = try world.reference(request)
        let actual = try fetch(store, request)
        let describe: ([Record]) -> String = { records in
            "[" + records.map { "\($0.id.key):\($0.attributes.first?.description ?? "")" }.joined(separator: ", ") + "]"
        }
        try expect(actual.map(\.id.key) == expected.map(\.id.key),
                   "fetch returned \(describe(actual)), the reference returns \(describe(expected))")
        for (a, e) in zip(actual, expected) {
            try expectSameRecord(a, e)
        }
        let ids = try store.read { try $0.recordIDs(request, schema: Fixtures.schema) }
        try expect(ids == expected.map(\.id),
                   "recordIDs(_:schema:) returned \(ids.map(\.description)), the reference returns \(expected.map(\.id.description))")
        let unordered = try store.read { try $0.unorderedRecordIDs(request, schema: Fixtures.schema) }
        try expect(unordered.sorted(by: Self.keyOrder) == expected.map(\.id).sorted(by: Self.keyOrder),
                   "unorderedRecordIDs(_:schema:) returned \(unordered.map(\.description)), the reference selects \(expected.map(\.id.description)) (in any order, each once)")
        if request.limit == nil && request.offset == 0 {
            let count = try store.read { try $0.count(request) }
            try expectEqual(count, expected.count, "count(_:)")
        }
        try expectHonouredHint(store, request, expected)
    }

    /// Fails unless a fetch told that the `known` keys are known (``FetchRequest/knownRecords``;
    /// every other expected record when `nil`) returns the same records in the same order, each
    /// known one whole or by identifier alone (its concrete entity and key, no values), and only
    /// when the backend left no stage pending; every other record whole.
    func expectHonouredHint(_ store: any StorageInterface, _ request: FetchRequest, _ expected: [Record], known: KnownRecordKeys? = nil) throws {
        let known = known ?? {
            var everyOther = KnownRecordKeys()
            for (i, record) in expected.enumerated() where i % 2 == 0 { everyOther.insert(record.id.key) }
            return everyOther
        }()
        var hinted = request
        hinted.knownRecords = known
        let result = try store.read { try $0.fetch(hinted) }
        let records = try result.completed(for: hinted, schema: Fixtures.schema)
        try expect(records.map(\.id) == expected.map(\.id),
                   "a fetch with known records returned \(records.map(\.id.description)), the reference returns \(expected.map(\.id.description))")
        for (actual, wanted) in zip(records, expected) {
            let identifierOnly = actual.holdsNoValues && !wanted.holdsNoValues
            if identifierOnly {
                try expect(known.contains(wanted.id.key), "\(wanted.id) came back without values, but the request did not say it was known")
                try expect(result.pending.isEmpty, "\(wanted.id) came back without values from a fetch that left stages \(result.pending.rawValue) pending")
            } else {
                try expectSameRecord(actual, wanted)
            }
        }
    }

    /// Identifiers by entity, then key: the order two identifier lists are compared in when
    /// their own order does not matter.
    static func keyOrder(_ a: RecordID, _ b: RecordID) -> Bool {
        (a.entity, a.key) < (b.entity, b.key)
    }

    /// Fails unless two records are equal (the order of unordered to-many relationships aside).
    func expectSameRecord(_ actual: Record?, _ expected: Record?, schema: StoreSchema = Fixtures.schema) throws {
        func normalized(_ r: Record?) -> Record? {
            guard var r else { return nil }
            if let entity = schema.entity(named: r.id.entity) {
                for (i, rel) in entity.relationships.enumerated() where rel.kind == .toManyUnordered && i < r.relationships.count {
                    r.relationships[i].sort()
                }
            }
            return r
        }
        let a = normalized(actual), e = normalized(expected)
        guard let a, let e else {
            try expect(a == nil && e == nil, "record is \(String(describing: a)), expected \(String(describing: e))")
            return
        }
        try expectEqual(a.id.key, e.id.key, "record key")
        try expectEqual(a.id.entity, e.id.entity, "entity of record \(e.id)")
        try expectEqual(a.attributes, e.attributes, "attributes of \(e.id)")
        try expectEqual(a.relationships.map { $0.map(\.key) }, e.relationships.map { $0.map(\.key) }, "relationships of \(e.id)")
    }

    /// The stored records with these identifiers.
    func records(_ store: any StorageInterface, _ ids: [RecordID]) throws -> [Record?] {
        try store.read { try $0.records(ids) }
    }
}
