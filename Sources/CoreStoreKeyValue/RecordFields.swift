import Foundation
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
    func index(of bytes: UnsafeRawBufferPointer) -> Int? {
        // Schemas have few entities: a linear scan with a length check beats hashing the bytes.
        for (i, name) in utf8.enumerated() where name.count == bytes.count {
            if name.isEmpty || name.withUnsafeBytes({ memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }) { return i }
        }
        return nil
    }

    /// The name `bytes` spell: the schema's own string when it has that entity, else a new one.
    func name(_ bytes: UnsafeRawBufferPointer, reader: ByteReader) throws -> String {
        if let i = index(of: bytes) { return names[i] }
        guard let s = ByteReader.text(bytes) else { throw reader.damaged("invalid UTF-8") }
        return s
    }
}

/// A record's bytes parsed just far enough to read single attributes: the concrete entity, the
/// record key and, found on first use, where each attribute value up to the one asked for
/// starts. A fetch filters, sorts and aggregates on these and decodes a whole ``Record`` (which
/// checks the structure of all of it) only for the records it returns.
///
/// The bytes are borrowed from the engine's read (see ``KeyValueReader/scanValues(from:to:_:)``)
/// and valid only until the scan moves on. One instance is reused for every record of a scan,
/// so its offset table is allocated once.
struct RecordFields {
    /// The record's bytes, borrowed.
    private(set) var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    /// The index of the record's entity in ``EntityNames``; `nil` when the schema lacks it.
    private(set) var entityIndex: Int?
    /// The record key.
    private(set) var key: Int64 = 0
    /// The offset right after the header, where the attribute count starts.
    private var headerEnd = 0
    /// The number of attribute values the record holds; `nil` until an attribute is read.
    private var attributeCount: Int?
    /// The offset of each attribute's tag byte, for the attributes found so far.
    private var offsets: [Int] = []
    /// Where the attribute after the last one found starts.
    private var nextOffset = 0

    /// Parses the header of `bytes` (version, entity, key) and returns the entity's index in
    /// `names`; throws when the header is damaged or of an unknown version.
    mutating func loadHeader(_ bytes: UnsafeRawBufferPointer, names: EntityNames) throws -> Int? {
        self.bytes = bytes
        offsets.removeAll(keepingCapacity: true)
        attributeCount = nil
        var r = ByteReader(bytes, what: "record")
        try RecordCodec.checkVersion(&r)
        entityIndex = names.index(of: try r.blob())
        key = try r.signed()
        headerEnd = r.position
        return entityIndex
    }

    /// The value of the attribute at `ordinal`; `.null` past the stored attributes (the record's
    /// shape is checked when it is written, so this does not happen for stored records). Only
    /// the attributes up to `ordinal` are parsed, each checking its bounds.
    mutating func attribute(_ ordinal: Int) throws -> Value {
        let count: Int
        if let known = attributeCount {
            count = known
        } else {
            var r = ByteReader(bytes, what: "record", position: headerEnd)
            count = try r.count()
            attributeCount = count
            nextOffset = r.position
        }
        guard ordinal < count else { return .null }
        if ordinal >= offsets.count {
            var r = ByteReader(bytes, what: "record", position: nextOffset)
            while offsets.count <= ordinal {
                offsets.append(r.position)
                try RecordCodec.skipValue(&r)
            }
            nextOffset = r.position
        }
        var r = ByteReader(bytes, what: "record", position: offsets[ordinal])
        return try RecordCodec.decodeValue(&r)
    }

    /// The whole record, decoded from after its header.
    func record(names: EntityNames) throws -> Record {
        guard let entityIndex else { return try RecordCodec.decode(bytes, names: names) }
        var r = ByteReader(bytes, what: "record", position: headerEnd)
        return try RecordCodec.body(&r, id: RecordID(entity: names.names[entityIndex], key: key), names: names)
    }
}
