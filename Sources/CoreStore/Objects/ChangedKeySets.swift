import CoreStoreStorage

/// The names of the fields that differ between two versions of records, for the updates of one
/// commit. Most updates of a commit change the same few fields of one entity: each combination
/// of changed fields is named by one set, built once and shared, instead of a set of strings
/// hashed anew for every update.
struct ChangedKeySets {
    /// An entity and the ordinals of its changed attributes and relationships, as bits.
    private struct Combination: Hashable {
        let entity: ObjectIdentifier
        let attributes: UInt64
        let relationships: UInt64
    }

    private var known: [Combination: Set<String>] = [:]
    /// The combination named last and its set: consecutive updates usually repeat it, and
    /// comparing three words costs less than hashing them.
    private var last: (combination: Combination, keys: Set<String>)?

    /// The names of the fields whose values differ between `old` and `new`, records of
    /// `entity` (an unordered to-many relationship differs only in its members, not their
    /// order).
    mutating func keys(from old: Record, to new: Record, of entity: EntityMetadata) -> Set<String> {
        let description = entity.description
        guard description.attributes.count <= 64, description.relationships.count <= 64 else {
            return Self.keys(from: old, to: new, of: description)
        }
        var attributes: UInt64 = 0, relationships: UInt64 = 0
        Self.forEachChange(from: old, to: new, of: description) { ordinal, isAttribute in
            if isAttribute { attributes |= 1 << ordinal } else { relationships |= 1 << ordinal }
        }
        if attributes == 0 && relationships == 0 { return [] }
        let combination = Combination(entity: ObjectIdentifier(entity), attributes: attributes, relationships: relationships)
        if let last, last.combination == combination { return last.keys }
        if let keys = known[combination] {
            last = (combination, keys)
            return keys
        }
        var keys = Set<String>()
        for (i, attribute) in description.attributes.enumerated() where attributes & (1 << i) != 0 { keys.insert(attribute.name) }
        for (i, relationship) in description.relationships.enumerated() where relationships & (1 << i) != 0 { keys.insert(relationship.name) }
        known[combination] = keys
        last = (combination, keys)
        return keys
    }

    /// The names of the fields whose values differ between two versions of one record, built
    /// for this one pair.
    static func keys(from old: Record, to new: Record, of description: EntityDescription) -> Set<String> {
        var keys = Set<String>()
        forEachChange(from: old, to: new, of: description) { ordinal, isAttribute in
            keys.insert(isAttribute ? description.attributes[ordinal].name : description.relationships[ordinal].name)
        }
        return keys
    }

    /// Calls `body` with the ordinal of every attribute, then of every relationship, whose
    /// value differs.
    private static func forEachChange(from old: Record, to new: Record, of description: EntityDescription, _ body: (_ ordinal: Int, _ isAttribute: Bool) -> Void) {
        for i in description.attributes.indices where new.attributes[i] != old.attributes[i] {
            body(i, true)
        }
        for i in description.relationships.indices where new.relationships[i] != old.relationships[i] {
            if description.relationships[i].kind == .toManyUnordered, Set(new.relationships[i]) == Set(old.relationships[i]) { continue }
            body(i, false)
        }
    }
}
