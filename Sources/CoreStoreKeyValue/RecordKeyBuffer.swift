import CoreStoreStorage

/// Builds record keys one after another in one buffer, for loops that look up or write many
/// records: the hierarchy's prefix is looked up only when the entity differs from the previous
/// key's, and the buffer keeps its capacity, so a key costs no allocation and no dictionary
/// lookup.
struct RecordKeyBuffer {
    /// The layout whose prefixes the keys start with.
    private let layout: KeyValueLayout
    /// The entity of the prefix in ``bytes``; `nil` before the first key.
    private var entity: String?
    /// How many bytes of ``bytes`` are the prefix.
    private var prefixCount = 0
    /// The latest key built.
    private(set) var bytes: [UInt8] = []

    init(layout: KeyValueLayout) {
        self.layout = layout
        bytes.reserveCapacity(64)
    }

    /// Makes ``bytes`` the key of the record `key` in `entity`'s hierarchy (the same bytes as
    /// ``KeyValueLayout/recordKey(entity:key:)``).
    mutating func set(entity: String, key: Int64) {
        if entity == self.entity {
            bytes.removeLast(bytes.count - prefixCount)
        } else {
            bytes.removeAll(keepingCapacity: true)
            bytes.append(contentsOf: layout.recordPrefix(ofHierarchyOf: entity))
            prefixCount = bytes.count
            self.entity = entity
        }
        TupleEncoder.encodeInt(key, into: &bytes)
    }
}
