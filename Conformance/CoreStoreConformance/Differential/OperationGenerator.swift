import Foundation
import CoreStoreStorage

/// SplitMix64: a small, fast, fully deterministic generator, so that a seed reproduces a sequence
/// on every platform and Swift version.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) {
        self.state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `0..<bound` (`0` when `bound` ≤ 1), independent of the standard
    /// library's sampling algorithm.
    public mutating func below(_ bound: Int) -> Int {
        bound <= 1 ? 0 : Int(next() % UInt64(bound))
    }

    /// True with probability `1 / n`.
    public mutating func oneIn(_ n: Int) -> Bool {
        below(n) == 0
    }

    /// A random element, or `nil` for an empty array.
    public mutating func pick<T>(_ elements: [T]) -> T? {
        elements.isEmpty ? nil : elements[below(elements.count)]
    }
}

/// Generates the operations of one differential sequence over ``DifferentialSchema``.
///
/// The generator reads the ``ReferenceModel`` to build operations that mostly make sense (updates
/// of live records, relationships kept consistent on both sides in the same change set, as the
/// framework's core writes them), and now and then deliberately invalid change sets.
///
/// It also plays **long-lived writers** (see `OperationGenerator+StaleWriters.swift`): it keeps
/// the model as it was during the last operations and writes change sets built on one of those
/// snapshots, as an unsafe transaction begun back then would, so that stores must merge them
/// with what other commits wrote meanwhile.
public struct OperationGenerator: Sendable {
    var random: SplitMix64
    let schema = DifferentialSchema.schema
    /// The model as it was before each of the last operations, oldest first.
    var history: [ReferenceModel] = []

    /// A generator for the sequence with this seed.
    public init(seed: UInt64) {
        self.random = SplitMix64(seed: seed)
    }

    // MARK: Value pools

    static let names = ["ann", "Ann", "ANN", "\u{E9}mile", "e\u{301}mile", "Emile", "zed", "", "Zo\u{EB}", "zoe"]
    static let codes = ["A1", "a1", "B2", "\u{C9}", "\u{E9}", "e\u{301}", "c3", "C3"]
    static let titles = ["red", "Red", "RED", "bleu", "bl\u{E9}u", "green"]
    static let fragments = ["a", "A", "e", "\u{E9}", "", "z", "mi", "E", "1"]
    static let likePatterns = ["*a*", "?nn", "*", "\u{E9}*", "e*", "A?1", "*e"]
    static let regexes = ["[a-z]+", ".*e.*", "A.", "\u{E9}.*"]

    private mutating func string(_ pool: [String]) -> Value { .string(random.pick(pool) ?? "") }

    private mutating func integer() -> Value {
        switch random.below(14) {
        case 0: return .null
        case 1: return .int(random.oneIn(2) ? Int64.max : Int64.min)
        default: return .int(Int64(random.below(10)) - 3)
        }
    }

    private mutating func double() -> Value {
        switch random.below(12) {
        case 0: return .null
        case 1: return .double(.nan)
        case 2: return .double(-0.0)
        case 3: return .double(0.0)
        case 4: return .double(random.oneIn(2) ? .infinity : -.infinity)
        default: return .double(Double(random.below(17) - 8) / 2)
        }
    }

    private mutating func boolean() -> Value {
        random.oneIn(4) ? .null : .bool(random.oneIn(2))
    }

    private mutating func decimal() -> Value {
        switch random.below(8) {
        case 0: return .null
        case 1: return .decimal(Decimal(string: "12345678901234567890.25") ?? 0)
        case 2: return .decimal(Decimal(string: "0.1") ?? 0)
        default: return .decimal(Decimal(random.below(13) - 6) / 4)
        }
    }

    private mutating func date() -> Value {
        switch random.below(6) {
        case 0: return .null
        case 1: return .date(Date(timeIntervalSince1970: 1_000_000.123456 + Double(random.below(3))))
        default: return .date(Date(timeIntervalSinceReferenceDate: Double(random.below(9) - 4) * 3600.5))
        }
    }

    private enum Kind { case string([String]), integer, double, boolean, decimal, date }

    private func kind(of key: String) -> Kind {
        switch key {
        case "name": return .string(Self.names)
        case "code": return .string(Self.codes)
        case "title": return .string(Self.titles)
        case "label": return .string(Self.names + Self.titles)
        case "rank", "level", "age": return .integer
        case "score", "weight": return .double
        case "price": return .decimal
        case "stamp": return .date
        default: return .boolean
        }
    }

    mutating func value(for key: String, optional: Bool = true) -> Value {
        var v: Value
        switch kind(of: key) {
        case .string(let pool): v = random.oneIn(optional ? 4 : 1_000_000) ? .null : string(pool)
        case .integer: v = integer()
        case .double: v = double()
        case .boolean: v = boolean()
        case .decimal: v = decimal()
        case .date: v = date()
        }
        if !optional, v.isNull { v = .string(random.pick(Self.names) ?? "") }
        return v
    }

    func attributes(of entity: String) -> [AttributeDescription] {
        schema.entity(named: entity)?.attributes ?? []
    }

    // MARK: Operations

    /// The next operation, given the reference model's current state.
    public mutating func next(model: ReferenceModel) -> DifferentialOperation {
        history.append(model)
        if history.count > Self.historyDepth { history.removeFirst() }
        // Reads of an empty store can only answer nothing: fill it first, mostly.
        if model.records.isEmpty, !random.oneIn(4) {
            var draft = Draft(model: model)
            for _ in 0...random.below(3) { create(&draft, model) }
            return .write(draft.changeSet(schema), note: "create")
        }
        switch random.below(23) {
        case 20, 21, 22: return staleWrite(model) ?? write(model)
        case 0..<7: return write(model)
        case 7..<14: return .fetch(fetchRequest(model))
        case 14, 15: return .count(fetchRequest(model))
        case 16, 17, 18: return .aggregate(aggregateRequest(model))
        default:
            let live = model.records.keys.sorted()
            var ids = (0..<(random.oneIn(8) ? 0 : 1 + random.below(3))).compactMap { _ in random.pick(live).flatMap { model.records[$0]?.id } }
            if random.oneIn(3) { ids.append(RecordID(entity: random.pick(DifferentialSchema.concreteEntities) ?? "Tag", key: model.nextKey + Int64(random.below(3)))) }
            if random.oneIn(2), let gone = random.pick(model.deleted) { ids.append(gone) }
            return .lookUp(ids)
        }
    }

    /// Fetches of every concrete entity, to compare the whole final state.
    public static func finalChecks() -> [DifferentialOperation] {
        DifferentialSchema.concreteEntities.map { .fetch(FetchRequest(entity: $0)) }
    }

    mutating func write(_ model: ReferenceModel) -> DifferentialOperation {
        var draft = Draft(model: model)
        let live = model.records.keys.sorted()
        func liveIDs(_ entity: String) -> [RecordID] {
            live.compactMap { model.records[$0]?.id }.filter { schema.entity($0.entity, isKindOf: entity) }
        }
        switch random.below(16) {
        case 0..<5:
            for _ in 0...random.below(3) { create(&draft, model) }
            return .write(draft.changeSet(schema), note: "create")
        case 5..<8:
            guard let id = random.pick(liveIDs("Item") + liveIDs("Owner") + liveIDs("Tag")), var record = draft.current(id.key) else { break }
            let attributes = self.attributes(of: id.entity)
            for _ in 0...random.below(2) {
                let i = random.below(attributes.count)
                record.attributes[i] = value(for: attributes[i].name, optional: attributes[i].isOptional)
                if attributes[i].name == "code", !record.attributes[i].isNull, draft.codeInUse(record.attributes[i], except: id.key) {
                    record.attributes[i] = .null
                }
            }
            draft.put(record)
            return .write(draft.changeSet(schema), note: "update")
        case 8, 9:
            guard let id = random.pick(live).flatMap({ model.records[$0]?.id }) else { break }
            draft.delete(id, schema)
            return .write(draft.changeSet(schema), note: "delete")
        case 10, 11, 12:
            guard let item = random.pick(liveIDs("Item")) else { break }
            if random.oneIn(2) {
                draft.setOwner(of: item, to: random.oneIn(4) ? nil : random.pick(liveIDs("Owner")), schema)
                return .write(draft.changeSet(schema), note: "relate owner")
            }
            guard let tag = random.pick(liveIDs("Tag")) else { break }
            let has = draft.current(item.key)?.relationships[1].contains(tag) ?? false
            draft.setTagged(item, tag, !has, schema)
            return .write(draft.changeSet(schema), note: has ? "unrelate tag" : "relate tag")
        case 13, 14:
            // A uniqueness violation: another item takes a code that is in use.
            let coded = liveIDs("Item").filter { model.records[$0.key].map { !$0.attributes[1].isNull } ?? false }
            guard let holder = random.pick(coded), let code = model.records[holder.key]?.attributes[1] else { break }
            if random.oneIn(2), let other = random.pick(liveIDs("Item").filter { $0 != holder }), var record = draft.current(other.key) {
                record.attributes[1] = code
                draft.put(record)
            } else {
                var record = newRecord(random.oneIn(2) ? "Gadget" : "Widget", &draft)
                record.attributes[1] = code
                draft.insert(record)
            }
            return .write(draft.changeSet(schema), note: "invalid: unique violation")
        default:
            break
        }
        // A missing record: a key never assigned, or one just deleted.
        var missing = RecordID(entity: random.pick(DifferentialSchema.concreteEntities) ?? "Tag", key: model.nextKey + 50 + Int64(random.below(5)))
        if random.oneIn(2), let gone = random.pick(model.deleted) { missing = gone }
        if random.oneIn(2) {
            draft.deletes.append(missing)
        } else {
            let shapeOf = newRecord(missing.entity, &draft)
            draft.inserts.removeAll()
            draft.forceUpdate(Record(id: missing, attributes: shapeOf.attributes, relationships: shapeOf.relationships.map { _ in [] }))
        }
        return .write(draft.changeSet(schema), note: "invalid: missing record")
    }

    mutating func newRecord(_ entity: String, _ draft: inout Draft) -> Record {
        let id = draft.temporaryID(entity)
        let attributes = self.attributes(of: entity).map { value(for: $0.name, optional: $0.isOptional) }
        let relationships = (schema.entity(named: entity)?.relationships ?? []).map { _ in [RecordID]() }
        var record = Record(id: id, attributes: attributes, relationships: relationships)
        if schema.entity(entity, isKindOf: "Item"), !record.attributes[1].isNull, draft.codeInUse(record.attributes[1], except: nil) {
            record.attributes[1] = .null
        }
        return record
    }

    mutating func create(_ draft: inout Draft, _ model: ReferenceModel) {
        let entity = random.pick(DifferentialSchema.concreteEntities) ?? "Tag"
        let record = newRecord(entity, &draft)
        draft.insert(record)
        guard schema.entity(entity, isKindOf: "Item") else { return }
        let owners = draft.allIDs(schema) { $0 == "Owner" }
        if random.oneIn(2), let owner = random.pick(owners) { draft.setOwner(of: record.id, to: owner, schema) }
        let tags = draft.allIDs(schema) { $0 == "Tag" }
        for _ in 0..<random.below(3) {
            if let tag = random.pick(tags) { draft.setTagged(record.id, tag, true, schema) }
        }
    }

    // MARK: Predicates

    /// The non-nil values of attribute `key` held by the live records of `entity` (and its
    /// sub-entities), in key order: the constants that make a comparison select something.
    private func presentValues(_ model: ReferenceModel, entity: String, key: String) -> [Value] {
        model.records.keys.sorted().compactMap { k -> Value? in
            guard let record = model.records[k], schema.entity(record.id.entity, isKindOf: entity),
                  let ordinal = schema.attributeOrdinal(key, in: record.id.entity) else { return nil }
            let value = record.attributes[ordinal]
            return value.isNull ? nil : value
        }
    }

    /// Three times out of four a value present in the model (when there is one), otherwise
    /// `nil` for the caller's own random constant: most comparisons then select some records,
    /// and the rest still probe values no record has.
    private mutating func presentValue(_ present: [Value]) -> Value? {
        guard !present.isEmpty, !random.oneIn(4) else { return nil }
        return random.pick(present)
    }

    /// A prefix, suffix or inner run of a present string (one or two characters), or a fragment.
    private mutating func fragment(of present: [Value], _ part: Int) -> Value {
        guard !random.oneIn(4), case .string(let s)? = random.pick(present), !s.isEmpty else { return string(Self.fragments) }
        let characters = Array(s)
        let length = min(characters.count, 1 + random.below(2))
        switch part {
        case 0: return .string(String(characters.prefix(length)))
        case 1: return .string(String(characters.suffix(length)))
        default:
            let start = random.below(characters.count - length + 1)
            return .string(String(characters[start..<start + length]))
        }
    }

    /// A LIKE pattern that matches a present string (one character turned into `?`, or the tail
    /// into `*`), or one of the fixed patterns.
    private mutating func likePattern(for present: [Value]) -> Value {
        guard !random.oneIn(4), case .string(let s)? = random.pick(present), !s.isEmpty else { return string(Self.likePatterns) }
        var characters = Array(s).map(String.init).map { $0 == "*" || $0 == "?" || $0 == "\\" ? "\\" + $0 : $0 }
        let i = random.below(characters.count)
        if random.oneIn(2) {
            characters[i] = "?"
        } else {
            characters = Array(characters.prefix(i)) + ["*"]
        }
        return .string(characters.joined())
    }

    /// BETWEEN bounds: usually low to high, now and then reversed (which selects nothing).
    private mutating func ordered(_ bounds: [Value]) -> [Value] {
        random.oneIn(4) ? bounds : bounds.sorted()
    }

    private mutating func attributeComparison(_ path: [String], key: String, present: [Value]) -> Comparison {
        let keyPath = path + [key]
        let quantifier: Quantifier = path.isEmpty ? .any : (random.pick([.any, .any, .all, .none]) ?? .any)
        switch kind(of: key) {
        case .string(let pool):
            let options = StringComparisonOptions(rawValue: UInt8(random.below(4)))
            func constant() -> Value {
                if let value = presentValue(present) { return value }
                return string(pool)
            }
            switch random.below(12) {
            case 0: return Comparison(keyPath, random.oneIn(2) ? .equal : .notEqual, .value(.null), quantifier: quantifier)
            case 1: return Comparison(keyPath, .beginsWith, .value(fragment(of: present, 0)), options: options, quantifier: quantifier)
            case 2: return Comparison(keyPath, .endsWith, .value(fragment(of: present, 1)), options: options, quantifier: quantifier)
            case 3: return Comparison(keyPath, .contains, .value(fragment(of: present, 2)), options: options, quantifier: quantifier)
            case 4: return Comparison(keyPath, .like, .value(likePattern(for: present)), options: options, quantifier: quantifier)
            case 5 where random.oneIn(2): return Comparison(keyPath, .matches, .value(string(Self.regexes)), options: options, quantifier: quantifier)
            case 6: return Comparison(keyPath, .in, .list((0..<random.below(3)).map { _ in constant() }), options: options, quantifier: quantifier)
            case 7: return Comparison(keyPath, .between, .list(ordered([constant(), constant()])), options: options, quantifier: quantifier)
            default:
                let op = random.pick([ComparisonOperator.equal, .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]) ?? .equal
                return Comparison(keyPath, op, .value(random.oneIn(15) ? .int(1) : constant()), options: options, quantifier: quantifier)
            }
        case .integer, .double, .boolean, .decimal, .date:
            func operand() -> Value {
                if let value = presentValue(present) { return value }
                switch kind(of: key) {
                case .integer: return random.oneIn(5) ? .double(Double(random.below(9) - 3) / 2) : integer()
                case .double: return random.oneIn(5) ? .int(Int64(random.below(7) - 3)) : double()
                case .decimal: return random.oneIn(4) ? (random.oneIn(2) ? .int(Int64(random.below(5) - 2)) : .double(Double(random.below(9) - 4) / 4)) : decimal()
                case .date: return date()
                default: return random.oneIn(6) ? .int(Int64(random.below(2))) : boolean()
                }
            }
            switch random.below(10) {
            case 0: return Comparison(keyPath, .in, .list((0..<random.below(4)).map { _ in operand() }), quantifier: quantifier)
            case 1: return Comparison(keyPath, .between, .list(ordered([operand(), operand()])), quantifier: quantifier)
            case 2 where random.oneIn(3): return Comparison(keyPath, .equal, .value(.string("1")), quantifier: quantifier)
            default:
                let op = random.pick([ComparisonOperator.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]) ?? .equal
                return Comparison(keyPath, op, .value(operand()), quantifier: quantifier)
            }
        }
    }

    private static let relationships: [String: [(name: String, destination: String, toMany: Bool)]] = [
        "Item": [("owner", "Owner", false), ("tags", "Tag", true)],
        "Owner": [("items", "Item", true)],
        "Tag": [("items", "Item", true)],
    ]

    private func base(_ entity: String) -> String {
        schema.entity(entity, isKindOf: "Item") ? "Item" : entity
    }

    private mutating func comparison(_ entity: String, _ model: ReferenceModel, depth: Int) -> RecordPredicate {
        let relationships = Self.relationships[base(entity)] ?? []
        guard random.below(10) < 4, let relationship = random.pick(relationships) else {
            let keys = attributes(of: entity).map(\.name)
            let key = random.pick(keys) ?? "name"
            return .comparison(attributeComparison([], key: key, present: presentValues(model, entity: entity, key: key)))
        }
        let destinations = model.records.keys.sorted().compactMap { model.records[$0]?.id }.filter { schema.entity($0.entity, isKindOf: relationship.destination) }
        switch random.below(6) {
        case 0:
            let op = random.pick([ComparisonOperator.equal, .notEqual, .less, .greater, .greaterOrEqual, .between]) ?? .equal
            let operand: Operand = op == .between ? .list([.int(Int64(random.below(3))), .int(Int64(random.below(4)))]) : .value(.int(Int64(random.below(4))))
            return .comparison(Comparison([relationship.name], op, operand, function: .count))
        case 1:
            switch random.below(4) {
            case 0: return .comparison(Comparison([relationship.name], .equal, .value(.null)))
            case 1: return .comparison(Comparison([relationship.name], .in, .records((0..<random.below(3)).compactMap { _ in random.pick(destinations) })))
            default:
                guard let target = random.pick(destinations) else { return .comparison(Comparison([relationship.name], .notEqual, .value(.null))) }
                return .comparison(Comparison([relationship.name], random.oneIn(3) ? .notEqual : .equal, .records([target])))
            }
        case 2 where depth == 0:
            let second = (Self.relationships[relationship.destination] ?? []).filter { $0.destination != base(entity) || $0.toMany }
            if let hop = random.pick(second) {
                let keys = attributes(of: hop.destination).map(\.name)
                let key = random.pick(keys) ?? "name"
                return .comparison(attributeComparison([relationship.name, hop.name], key: key, present: presentValues(model, entity: hop.destination, key: key)))
            }
            fallthrough
        default:
            let keys = attributes(of: relationship.destination).map(\.name)
            let key = random.pick(keys) ?? "name"
            return .comparison(attributeComparison([relationship.name], key: key, present: presentValues(model, entity: relationship.destination, key: key)))
        }
    }

    private mutating func predicate(_ entity: String, _ model: ReferenceModel, depth: Int = 0) -> RecordPredicate? {
        switch random.below(10) {
        case 0, 1: return depth == 0 ? nil : comparison(entity, model, depth: depth)
        case 2: return .not(predicate(entity, model, depth: depth + 1) ?? .constant(random.oneIn(2)))
        case 3 where depth < 2: return .and((0..<random.below(4)).compactMap { _ in predicate(entity, model, depth: depth + 1) })
        case 4 where depth < 2: return .or((0..<random.below(4)).compactMap { _ in predicate(entity, model, depth: depth + 1) })
        case 5 where random.oneIn(4): return .constant(random.oneIn(2))
        default: return comparison(entity, model, depth: depth)
        }
    }

    private mutating func sorts(_ entity: String) -> [RecordSortDescriptor] {
        let keys = attributes(of: entity).map(\.name)
        return (0..<random.below(3)).map { _ in RecordSortDescriptor(key: random.pick(keys) ?? "name", ascending: !random.oneIn(3)) }
    }

    /// An entity to read: three times out of four one that has live records (when any does).
    private mutating func readEntity(_ model: ReferenceModel) -> String {
        let populated = DifferentialSchema.fetchableEntities.filter { entity in
            model.records.values.contains { schema.entity($0.id.entity, isKindOf: entity) }
        }
        if !populated.isEmpty, !random.oneIn(4), let entity = random.pick(populated) { return entity }
        return random.pick(DifferentialSchema.fetchableEntities) ?? "Item"
    }

    private mutating func fetchRequest(_ model: ReferenceModel) -> FetchRequest {
        let entity = readEntity(model)
        return FetchRequest(
            entity: entity, includesSubentities: !random.oneIn(6), predicate: predicate(entity, model),
            sortDescriptors: sorts(entity), limit: random.oneIn(2) ? nil : (random.oneIn(20) ? 0 : 1 + random.below(5)),
            offset: random.oneIn(4) ? random.below(3) : 0
        )
    }

    private mutating func aggregateRequest(_ model: ReferenceModel) -> AggregateRequest {
        let entity = readEntity(model)
        let attributes = self.attributes(of: entity)
        let keys = attributes.map(\.name)
        let numeric = attributes.filter { [AttributeType.integer, .double, .bool, .decimal].contains($0.type) }.map(\.name)
        let predicate = random.oneIn(2) ? nil : self.predicate(entity, model)
        let limit = random.oneIn(3) ? (random.oneIn(10) ? 0 : 1 + random.below(3)) : nil
        let offset = random.oneIn(4) ? random.below(3) : 0
        if random.oneIn(3) {
            // Ungrouped: per-record values and relationship counts.
            var terms = (0...random.below(2)).map { _ in AggregateTerm(.value, random.pick(keys) ?? "name") }
            if let relationship = random.pick(Self.relationships[base(entity)] ?? []), random.oneIn(2) {
                terms.append(AggregateTerm(.count, relationship.name))
            }
            return AggregateRequest(entity: entity, includesSubentities: !random.oneIn(6), predicate: predicate, terms: terms,
                                    sortDescriptors: sorts(entity), limit: limit, offset: offset)
        }
        let groupBy = Array(Set((0..<random.below(3)).compactMap { _ in random.pick(keys) })).sorted()
        var terms = groupBy.filter { _ in !random.oneIn(3) }.map { AggregateTerm(.value, $0) }
        for _ in 0...random.below(3) {
            let function = random.pick([AggregateFunction.count, .sum, .average, .minimum, .maximum]) ?? .count
            let key = (function == .sum || function == .average) && !random.oneIn(12) ? random.pick(numeric) : random.pick(keys)
            terms.append(AggregateTerm(function, key ?? "name"))
        }
        let sortDescriptors = groupBy.filter { _ in random.oneIn(2) }.map { RecordSortDescriptor(key: $0, ascending: random.oneIn(2)) }
        return AggregateRequest(entity: entity, includesSubentities: !random.oneIn(6), predicate: predicate, terms: terms,
                                groupBy: groupBy, sortDescriptors: sortDescriptors, limit: limit, offset: offset)
    }
}

/// A change set being built: new records, changed copies of existing ones and deletions, with
/// both sides of every relationship kept in step.
struct Draft {
    let model: ReferenceModel
    var inserts: [Record] = []
    var modified: [Int64: Record] = [:]
    var deletes: [RecordID] = []
    var forcedUpdates: [Record] = []
    /// Keys changed in the draft that a long-lived writer leaves out of its change set (one
    /// side of a relationship), by record key.
    var unreported: [Int64: Set<String>] = [:]
    private var nextTemporary: Int64 = -1

    init(model: ReferenceModel) {
        self.model = model
    }

    mutating func temporaryID(_ entity: String) -> RecordID {
        defer { nextTemporary -= 1 }
        return RecordID(entity: entity, key: nextTemporary)
    }

    func current(_ key: Int64) -> Record? {
        if key < 0 { return inserts.first { $0.id.key == key } }
        if deletes.contains(where: { $0.key == key }) { return nil }
        return modified[key] ?? model.records[key]
    }

    mutating func put(_ record: Record) {
        if record.id.key < 0 {
            if let i = inserts.firstIndex(where: { $0.id.key == record.id.key }) { inserts[i] = record }
        } else {
            modified[record.id.key] = record
        }
    }

    /// Leaves `key` of record `recordKey` out of the change set even when the draft changes it.
    mutating func unreport(_ recordKey: Int64, _ key: String) {
        unreported[recordKey, default: []].insert(key)
    }

    mutating func insert(_ record: Record) {
        inserts.append(record)
    }

    mutating func forceUpdate(_ record: Record) {
        forcedUpdates.append(record)
    }

    func allIDs(_ schema: StoreSchema, where matches: (String) -> Bool) -> [RecordID] {
        let existing = model.records.keys.sorted().compactMap { current($0)?.id }
        return (existing + inserts.map(\.id)).filter { matches($0.entity) }
    }

    func codeInUse(_ code: Value, except key: Int64?) -> Bool {
        let keys = model.records.keys.sorted() + inserts.map(\.id.key)
        return keys.contains { k in
            k != key && current(k).map { DifferentialSchema.schema.entity($0.id.entity, isKindOf: "Item") && $0.attributes[1] == code } == true
        }
    }

    private mutating func edit(_ id: RecordID, _ body: (inout Record) -> Void) {
        guard var record = current(id.key) else { return }
        body(&record)
        put(record)
    }

    /// Points `item.owner` at `owner` and updates the old and new owners' `items`.
    mutating func setOwner(of item: RecordID, to owner: RecordID?, _ schema: StoreSchema) {
        guard let old = current(item.key)?.relationships[0] else { return }
        for previous in old where previous != owner { edit(previous) { $0.relationships[0].removeAll { $0 == item } } }
        edit(item) { $0.relationships[0] = owner.map { [$0] } ?? [] }
        if let owner, !old.contains(owner) { edit(owner) { $0.relationships[0].append(item) } }
    }

    /// Adds or removes `tag` in `item.tags` and `item` in `tag.items`.
    mutating func setTagged(_ item: RecordID, _ tag: RecordID, _ tagged: Bool, _ schema: StoreSchema) {
        guard let has = current(item.key)?.relationships[1].contains(tag), has != tagged else { return }
        if tagged {
            edit(item) { $0.relationships[1].append(tag) }
            edit(tag) { $0.relationships[0].append(item) }
        } else {
            edit(item) { $0.relationships[1].removeAll { $0 == tag } }
            edit(tag) { $0.relationships[0].removeAll { $0 == item } }
        }
    }

    /// Deletes `id` and removes it from the inverse side of each of its relationships (nullify).
    mutating func delete(_ id: RecordID, _ schema: StoreSchema) {
        guard let record = current(id.key), let entity = schema.entity(named: id.entity) else { return }
        for (ordinal, relationship) in entity.relationships.enumerated() {
            guard let inverse = relationship.inverseName else { continue }
            for destination in record.relationships[ordinal] {
                guard let d = current(destination.key), let inverseOrdinal = schema.relationshipOrdinal(inverse, in: d.id.entity) else { continue }
                edit(destination) { $0.relationships[inverseOrdinal].removeAll { $0 == id } }
            }
        }
        modified[id.key] = nil
        deletes.append(id)
    }

    /// The change set, with each update's `changedKeys` computed against the record the draft
    /// started from, which is also the update's `base`.
    func changeSet(_ schema: StoreSchema) -> ChangeSet {
        var updates: [RecordUpdate] = []
        for key in modified.keys.sorted() {
            guard let record = modified[key], let original = model.records[key], let entity = schema.entity(named: record.id.entity) else { continue }
            var changed: Set<String> = []
            for (i, attribute) in entity.attributes.enumerated() where record.attributes[i] != original.attributes[i] {
                changed.insert(attribute.name)
            }
            for (i, relationship) in entity.relationships.enumerated() {
                let a = record.relationships[i], b = original.relationships[i]
                let differs = relationship.kind == .toManyUnordered ? Set(a.map(\.key)) != Set(b.map(\.key)) : a.map(\.key) != b.map(\.key)
                if differs { changed.insert(relationship.name) }
            }
            updates.append(RecordUpdate(record: record, changedKeys: changed, base: original))
        }
        updates += forcedUpdates.map { RecordUpdate(record: $0, changedKeys: []) }
        return ChangeSet(inserts: inserts, updates: updates, deletes: deletes)
    }
}
