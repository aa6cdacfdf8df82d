import CoreStoreStorage

/// The entity names of a schema with their UTF-8 bytes, so that decoding a record reuses the
/// schema's `String`s instead of allocating and validating a new one per record.
struct EntityNames: Sendable {
    /// Every entity name, in schema order.
    let names: [String]
    /// `names[i]`'s UTF-8 bytes.
    private let utf8: [[UInt8]]

    /// The names of `schema`'s entities.
    init(schema: StoreSchema) {
        names = schema.entities.map(\.name)
        utf8 = names.map { Array($0.utf8) }
    }

    /// The index of the entity whose name is `bytes`, `nil` for a name the schema lacks.
    func index(of bytes: ArraySlice<UInt8>) -> Int? {
        // Schemas have few entities: a linear scan with a length check beats hashing the bytes.
        for (i, name) in utf8.enumerated() where name.count == bytes.count && name.elementsEqual(bytes) { return i }
        return nil
    }

    /// The name `bytes` spell: the schema's own string when it has that entity, else a new one.
    func name(_ bytes: ArraySlice<UInt8>, reader: ByteReader) throws -> String {
        if let i = index(of: bytes) { return names[i] }
        guard let s = bytes.withUnsafeBufferPointer({ String(validating: $0, as: UTF8.self) }) else { throw reader.damaged("invalid UTF-8") }
        return s
    }
}

/// A record's bytes parsed just far enough to read single attributes: the concrete entity, the
/// record key and where each attribute value starts. A fetch filters, sorts and aggregates on
/// these and decodes a whole ``Record`` only for the records it returns.
///
/// ``loadFields()`` checks the structure of the whole value (every length, count and tag, and
/// no trailing bytes) like ``RecordCodec/decode(_:)`` does, without building any value.
/// One instance is reused for every record of a scan, so its offset table is allocated once.
struct RecordFields {
    /// The record's bytes.
    private(set) var bytes: [UInt8] = []
    /// The index of the record's entity in ``EntityNames``; `nil` when the schema lacks it.
    private(set) var entityIndex: Int?
    /// The record key.
    private(set) var key: Int64 = 0
    /// The offset of each attribute's tag byte.
    private var offsets: [Int] = []

    /// The number of attribute values the record holds.
    var attributeCount: Int { offsets.count }

    /// The offset right after the header; where ``loadFields()`` starts.
    private var headerEnd = 0

    /// Parses the header of `bytes` (version, entity, key) and returns the entity's index in
    /// `names`; throws when the header is damaged or of an unknown version. Attributes are not
    /// readable before ``loadFields()``.
    mutating func loadHeader(_ bytes: [UInt8], names: EntityNames) throws -> Int? {
        self.bytes = bytes
        offsets.removeAll(keepingCapacity: true)
        var r = ByteReader(bytes, what: "record")
        let version = try r.byte()
        guard version == RecordCodec.formatVersion else { throw r.damaged("unknown record format version \(version)") }
        entityIndex = names.index(of: try r.blob())
        key = try r.signed()
        headerEnd = r.position
        return entityIndex
    }

    /// Finds where every attribute starts and checks the structure of the rest of the value
    /// (lengths, counts, tags, no trailing bytes).
    mutating func loadFields() throws {
        offsets.removeAll(keepingCapacity: true)
        var r = ByteReader(bytes, what: "record", position: headerEnd)
        let attributeCount = try r.count()
        for _ in 0..<attributeCount {
            offsets.append(r.position)
            try RecordCodec.skipValue(&r)
        }
        let relationshipCount = try r.count()
        for _ in 0..<relationshipCount {
            let n = try r.count()
            for _ in 0..<n {
                _ = try r.blob()
                _ = try r.signed()
            }
        }
        guard r.isAtEnd else { throw r.damaged("trailing bytes") }
    }

    /// The value of the attribute at `ordinal`; `.null` past the stored attributes (the record's
    /// shape is checked when it is written, so this does not happen for stored records).
    func attribute(_ ordinal: Int) throws -> Value {
        guard ordinal < offsets.count else { return .null }
        var r = ByteReader(bytes, what: "record", position: offsets[ordinal])
        return try RecordCodec.decodeValue(&r)
    }

    /// The whole record.
    func record(names: EntityNames) throws -> Record {
        try RecordCodec.decode(bytes, names: names)
    }
}
