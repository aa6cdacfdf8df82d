import CoreStoreStorage

/// Long-lived writers: change sets built on the model as it was some operations ago, as an
/// unsafe transaction begun back then would write them.
///
/// The writer sees one consistent snapshot and changes it the way the framework's object layer
/// does (both sides of every relationship it touches), then reports only the keys it changed,
/// with the snapshot's record as each update's `base`. Everything it did not change holds the
/// snapshot's — possibly outdated — values, which a store must not write back. Now and then it
/// also writes only one side of a relationship, names fewer keys than it changed, omits the
/// base, or relates a record to one deleted since the snapshot (which must be rejected).
extension OperationGenerator {
    /// How many past model states the generator keeps for long-lived writers.
    static let historyDepth = 16

    /// The start of the note of every write a long-lived writer makes.
    public static let staleNotePrefix = "stale"

    /// A change set built on an older snapshot, or `nil` when there is none worth writing.
    mutating func staleWrite(_ model: ReferenceModel) -> DifferentialOperation? {
        // One time in five the writer relates a record to one deleted since its snapshot, so
        // it starts from a snapshot that holds such a record, when there is one.
        let relatesToDeleted = random.oneIn(5)
        var snapshots = Array(history.indices.dropLast())
        if relatesToDeleted {
            let withDeleted = snapshots.filter { i in history[i].records.keys.contains { model.records[$0] == nil } }
            if !withDeleted.isEmpty { snapshots = withDeleted }
        }
        guard let index = random.pick(snapshots) else { return nil }
        let age = history.count - 1 - index
        let snapshot = history[index]
        guard !snapshot.records.isEmpty else { return nil }
        var draft = Draft(model: snapshot)
        var intents: [String] = []
        var relatesToDeletedAtEnd = relatesToDeleted
        for _ in 0...random.below(3) {
            let kind = random.below(Self.staleIntentKinds)
            if kind == Self.relateToDeleted {
                relatesToDeletedAtEnd = true
            } else if let intent = staleIntent(kind, &draft, current: model) {
                intents.append(intent)
            }
        }
        // Last: it writes one side only, which would mislead the draft's later changes (an
        // item would be added to a list that already holds it).
        if relatesToDeletedAtEnd, let intent = staleIntent(Self.relateToDeleted, &draft, current: model) { intents.append(intent) }
        let changes = staleChangeSet(draft, current: model)
        guard !intents.isEmpty, !changes.isEmpty else { return nil }
        return .write(changes, note: "\(Self.staleNotePrefix), \(age) operations old: " + intents.joined(separator: ", "))
    }

    /// Records the writer sees (and has not deleted itself) that still exist, of kind `entity`.
    private func alive(_ draft: Draft, _ current: ReferenceModel, _ entity: String) -> [RecordID] {
        draft.model.records.keys.sorted().compactMap { key -> RecordID? in
            guard let record = draft.current(key), current.records[key]?.id.entity == record.id.entity,
                  schema.entity(record.id.entity, isKindOf: entity) else { return nil }
            return record.id
        }
    }

    /// Records the writer sees that were deleted since its snapshot, of kind `entity`.
    private func gone(_ draft: Draft, _ current: ReferenceModel, _ entity: String) -> [RecordID] {
        draft.model.records.keys.sorted().compactMap { key -> RecordID? in
            guard let record = draft.model.records[key], current.records[key] == nil,
                  schema.entity(record.id.entity, isKindOf: entity) else { return nil }
            return record.id
        }
    }

    /// Whether `code` is held by an item other than `key`, in the writer's view or (three times
    /// out of four, to keep most stale writes valid) in the current state.
    private mutating func codeTaken(_ code: Value, except key: Int64, _ draft: Draft, _ current: ReferenceModel) -> Bool {
        if draft.codeInUse(code, except: key) { return true }
        guard !random.oneIn(4) else { return false }
        return current.records.values.contains { $0.id.key != key && schema.entity($0.id.entity, isKindOf: "Item") && $0.attributes[1] == code }
    }

    /// The number of kinds of change a long-lived writer makes, and the one that relates a record
    /// to one deleted since the snapshot.
    static let staleIntentKinds = 15
    static let relateToDeleted = 13

    /// Half the time, when there is one, a record that changed since the writer's snapshot (so
    /// that the writer's view of it is outdated); otherwise any of `ids`.
    private mutating func target(_ ids: [RecordID], _ draft: Draft, _ current: ReferenceModel) -> RecordID? {
        let changed = ids.filter { current.records[$0.key] != draft.model.records[$0.key] }
        if !changed.isEmpty, random.oneIn(2) { return random.pick(changed) }
        return random.pick(ids)
    }

    /// Applies change number `kind` (0..<``staleIntentKinds``) to the writer's draft; what it did, or `nil` when
    /// nothing fit. The draft keeps both sides of each relationship; the keys of one side are
    /// sometimes marked unreported, so that only the other side is written.
    private mutating func staleIntent(_ kind: Int, _ draft: inout Draft, current: ReferenceModel) -> String? {
        let schema = self.schema
        switch kind {
        case 0, 1, 2:
            guard let id = target(alive(draft, current, "Item") + alive(draft, current, "Owner") + alive(draft, current, "Tag"), draft, current),
                  var record = draft.current(id.key) else { return nil }
            let attributes = self.attributes(of: id.entity)
            for _ in 0...random.below(3) {
                let i = random.below(attributes.count)
                record.attributes[i] = value(for: attributes[i].name, optional: attributes[i].isOptional)
                if attributes[i].name == "code", !record.attributes[i].isNull, codeTaken(record.attributes[i], except: id.key, draft, current) {
                    record.attributes[i] = .null
                }
            }
            draft.put(record)
            return "update \(id)"
        case 3, 4, 5:
            // Tags added to or removed from an item, from the item's side or the tag's.
            let fromItem = random.below(3) != 0
            let items = alive(draft, current, "Item"), tags = alive(draft, current, "Tag")
            guard let pivot = target(fromItem ? items : tags, draft, current), !(fromItem ? tags : items).isEmpty else { return nil }
            let oneSided = random.oneIn(3)
            var picked: Set<Int64> = []
            for _ in 0...random.below(2) {
                guard let other = random.pick(fromItem ? tags : items), picked.insert(other.key).inserted else { continue }
                let (item, tag) = fromItem ? (pivot, other) : (other, pivot)
                let has = draft.current(item.key)?.relationships[1].contains { $0.key == tag.key } ?? false
                draft.setTagged(item, tag, !has, schema)
                if oneSided { draft.unreport(other.key, fromItem ? "items" : "tags") }
            }
            return (fromItem ? "retag \(pivot)" : "change the items of \(pivot)") + (oneSided ? " (one side)" : "")
        case 6, 7:
            guard let item = target(alive(draft, current, "Item"), draft, current) else { return nil }
            let owner = random.oneIn(4) ? nil : random.pick(alive(draft, current, "Owner"))
            let oneSided = random.oneIn(3)
            if oneSided {
                // Only the item is written: the store updates the owners' lists.
                for previous in draft.current(item.key)?.relationships[0] ?? [] { draft.unreport(previous.key, "items") }
                if let owner { draft.unreport(owner.key, "items") }
            }
            draft.setOwner(of: item, to: owner, schema)
            return "move \(item) to \(owner?.description ?? "no owner")" + (oneSided ? " (one side)" : "")
        case 8, 9, 10:
            // An owner gains or loses items (each gained item leaves its owner in the snapshot).
            guard let owner = target(alive(draft, current, "Owner"), draft, current) else { return nil }
            let items = alive(draft, current, "Item")
            // Mostly an item that has another owner now, which it must leave.
            let ownedElsewhere = items.filter { current.records[$0.key]?.relationships[0].contains { $0.key != owner.key } ?? false }
            let oneSided = !random.oneIn(3)
            var picked: Set<Int64> = []
            for _ in 0...random.below(2) {
                guard let item = random.pick(!ownedElsewhere.isEmpty && !random.oneIn(4) ? ownedElsewhere : items),
                      picked.insert(item.key).inserted else { continue }
                let owned = draft.current(item.key)?.relationships[0].contains { $0.key == owner.key } ?? false
                if oneSided {
                    // Only this owner is written: the store moves the item, and takes it from
                    // the owner it has at commit time.
                    draft.unreport(item.key, "owner")
                    for previous in draft.current(item.key)?.relationships[0] ?? [] where previous.key != owner.key {
                        draft.unreport(previous.key, "items")
                    }
                }
                draft.setOwner(of: item, to: owned ? nil : owner, schema)
            }
            return "change the items of \(owner)" + (oneSided ? " (one side)" : "")
        case 11, 12:
            // The writer nullifies the relationships it sees; the store must also remove the
            // record from destinations related since the snapshot.
            guard let id = target(alive(draft, current, "Item") + alive(draft, current, "Owner") + alive(draft, current, "Tag"), draft, current) else { return nil }
            draft.delete(id, schema)
            return "delete \(id)"
        case Self.relateToDeleted:
            // One side only, to a record deleted since the snapshot: must be rejected.
            guard let target = random.pick(gone(draft, current, "Item") + gone(draft, current, "Owner") + gone(draft, current, "Tag")) else { return nil }
            let targetIsItem = schema.entity(target.entity, isKindOf: "Item")
            let ordinal = target.entity == "Tag" ? 1 : 0
            let sources = (targetIsItem ? alive(draft, current, random.oneIn(2) ? "Owner" : "Tag") : alive(draft, current, "Item")).filter {
                !(draft.current($0.key)?.relationships[ordinal].contains { $0.key == target.key } ?? true)
            }
            guard let source = random.pick(sources), var record = draft.current(source.key) else { return nil }
            if target.entity == "Owner" {
                record.relationships[0] = [target]
            } else {
                record.relationships[ordinal].append(target)
            }
            draft.put(record)
            return "relate \(source) to \(target), deleted meanwhile"
        default:
            create(&draft, draft.model)
            return "create"
        }
    }

    /// The draft's change set as a long-lived writer reports it: updates of records deleted
    /// since the snapshot mostly left out (one time in eight the writer fails on them), and
    /// each update now and then without its base, with one relationship key not reported (the
    /// store keeps that side itself), or with one changed attribute not reported (its value in
    /// the writer's record must then be ignored).
    private mutating func staleChangeSet(_ draft: Draft, current: ReferenceModel) -> ChangeSet {
        var changes = draft.changeSet(schema)
        let keepsVanished = random.oneIn(8)
        var updates: [RecordUpdate] = []
        for var update in changes.updates {
            let id = update.record.id
            if current.records[id.key]?.id.entity != id.entity, !keepsVanished { continue }
            guard let entity = schema.entity(named: id.entity) else { continue }
            update.changedKeys.subtract(draft.unreported[id.key] ?? [])
            if random.oneIn(10) { update.base = nil }
            let relationshipKeys = entity.relationships.map(\.name).filter(update.changedKeys.contains)
            if !relationshipKeys.isEmpty, random.oneIn(6), let key = random.pick(relationshipKeys) {
                update.changedKeys.remove(key)
            }
            let attributeKeys = entity.attributes.map(\.name).filter(update.changedKeys.contains)
            if !attributeKeys.isEmpty, random.oneIn(5), let key = random.pick(attributeKeys) {
                update.changedKeys.remove(key)
            }
            if update.changedKeys.isEmpty, random.oneIn(2) { continue }
            updates.append(update)
        }
        changes.updates = updates
        return changes
    }
}
