import Foundation

/// The attribute ordinals of the last few (entity, attribute) pairs one evaluator looked up, so
/// that a scan testing the same comparison on every record finds the ordinal by comparing two
/// names instead of hashing them into the schema's tables once per record.
///
/// Shared by one evaluator's copies; lock-protected.
final class AttributeOrdinalCache: @unchecked Sendable {
    private struct Entry {
        let entity: String
        let attribute: String
        let ordinal: Int?
    }

    /// How many pairs are kept: a predicate rarely names more attributes of more entities.
    private static let capacity = 8

    private let lock = NSLock()
    /// The pairs, most recently added last.
    private var entries: [Entry] = []

    /// The ordinal of `attribute` in `entity`, as `schema` answers it.
    func ordinal(_ attribute: String, in entity: String, schema: StoreSchema) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        for entry in entries where entry.attribute == attribute && entry.entity == entity { return entry.ordinal }
        let ordinal = schema.attributeOrdinal(attribute, in: entity)
        if entries.count >= Self.capacity { entries.removeFirst() }
        entries.append(Entry(entity: entity, attribute: attribute, ordinal: ordinal))
        return ordinal
    }
}
