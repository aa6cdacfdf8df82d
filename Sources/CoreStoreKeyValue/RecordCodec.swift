import Foundation
import CoreStoreStorage

/// The compact, versioned binary form of a whole ``Record``: what a record key's value holds.
///
/// Layout of format version 1 (varints are LEB128; signed ones zig-zag):
/// ```
/// version (1 byte = 1)
/// entity (varint length + UTF-8)      — first, so a scan can skip other entities cheaply
/// key (signed varint)
/// attribute count, then per attribute: tag + payload
///   0 nil · 1 false · 2 true · 3 int (signed varint) · 4 double (8-byte bit pattern)
///   5 decimal (its exact description) · 6 string (UTF-8, NUL kept) · 7 bytes
///   8 date (bit pattern of timeIntervalSinceReferenceDate) · 9 uuid (16 bytes)
/// relationship count, then per relationship: destination count, then per destination
///   its entity (length + UTF-8) and key (signed varint)
/// ```
/// Values round-trip exactly: doubles by bit pattern (NaN payloads and `-0.0` included), strings
/// byte for byte. Decoding damaged bytes throws a ``StorageError`` and never traps.
public enum RecordCodec {
    /// The format version written as the first byte.
    public static let formatVersion: UInt8 = 1

    /// The bytes of `record`.
    public static func encode(_ record: Record) -> [UInt8] {
        var w = ByteWriter()
        // A guess that fits typical records, so the buffer is not regrown several times.
        w.bytes.reserveCapacity(32 + record.id.entity.utf8.count + record.attributes.count * 12)
        w.byte(formatVersion)
        w.string(record.id.entity)
        w.signed(record.id.key)
        w.varint(UInt64(record.attributes.count))
        for value in record.attributes { encode(value, into: &w) }
        w.varint(UInt64(record.relationships.count))
        for destinations in record.relationships {
            w.varint(UInt64(destinations.count))
            for id in destinations {
                w.string(id.entity)
                w.signed(id.key)
            }
        }
        return w.bytes
    }

    /// The record `bytes` hold; throws when they are damaged or of an unknown version.
    public static func decode(_ bytes: [UInt8]) throws -> Record {
        try bytes.withUnsafeBytes { try decode($0, names: nil) }
    }

    /// The record `bytes` hold, with entity names that `names` knows taken from it (no new
    /// string per record).
    static func decode(_ bytes: UnsafeRawBufferPointer, names: EntityNames?) throws -> Record {
        var r = ByteReader(bytes, what: "record")
        let id = try header(&r, names: names)
        return try body(&r, id: id, names: names)
    }

    /// The rest of a record whose header `r` has read: its attributes and relationships, and
    /// the check that nothing follows them.
    static func body(_ r: inout ByteReader, id: RecordID, names: EntityNames?) throws -> Record {
        let attributeCount = try r.count()
        let attributes = try [Value](unsafeUninitializedCapacity: attributeCount) { buffer, initialized in
            while initialized < attributeCount {
                (buffer.baseAddress! + initialized).initialize(to: try decodeValue(&r))
                initialized += 1
            }
        }
        let relationshipCount = try r.count()
        var relationships: [[RecordID]] = []
        if relationshipCount > 0 {
            relationships.reserveCapacity(relationshipCount)
            for _ in 0..<relationshipCount {
                let n = try r.count()
                var destinations: [RecordID] = []
                if n > 0 {
                    destinations.reserveCapacity(n)
                    for _ in 0..<n {
                        let entity = try entityName(&r, names: names)
                        destinations.append(RecordID(entity: entity, key: try r.signed()))
                    }
                }
                relationships.append(destinations)
            }
        }
        guard r.isAtEnd else { throw r.damaged("trailing bytes") }
        return Record(id: id, attributes: attributes, relationships: relationships)
    }

    /// The identifier of the record `bytes` hold, without decoding the rest.
    public static func recordID(_ bytes: [UInt8]) throws -> RecordID {
        try ByteReader.reading(bytes, what: "record") { try header(&$0) }
    }

    private static func header(_ r: inout ByteReader, names: EntityNames? = nil) throws -> RecordID {
        try checkVersion(&r)
        let entity = try entityName(&r, names: names)
        return RecordID(entity: entity, key: try r.signed())
    }

    /// Reads the format version byte; throws for any other version.
    static func checkVersion(_ r: inout ByteReader) throws {
        let version = try r.byte()
        guard version == formatVersion else { throw r.damaged("unknown record format version \(version)") }
    }

    /// A length-prefixed entity name, reusing `names`' string when it has that entity.
    private static func entityName(_ r: inout ByteReader, names: EntityNames?) throws -> String {
        guard let names else { return try r.string() }
        let raw = try r.blob()
        return try names.name(raw, reader: r)
    }

    /// Moves past one tagged value without building it, checking its bounds.
    static func skipValue(_ r: inout ByteReader) throws {
        let tag = try r.byte()
        switch tag {
        case 0, 1, 2: return
        case 3: try r.skipVarint()
        case 4, 8: try r.skip(8)
        case 5, 6, 7: try r.skip(try r.count())
        case 9: try r.skip(16)
        default: throw r.damaged("unknown value tag \(tag)")
        }
    }

    private static func encode(_ value: Value, into w: inout ByteWriter) {
        switch value {
        case .null: w.byte(0)
        case .bool(let b): w.byte(b ? 2 : 1)
        case .int(let i): w.byte(3); w.signed(i)
        case .double(let d): w.byte(4); w.fixed64(d.bitPattern)
        case .decimal(let d): w.byte(5); w.string(d.description)
        case .string(let s): w.byte(6); w.string(s)
        case .bytes(let data): w.byte(7); w.blob(data)
        case .date(let date): w.byte(8); w.fixed64(date.timeIntervalSinceReferenceDate.bitPattern)
        case .uuid(let uuid): w.byte(9); withUnsafeBytes(of: uuid.uuid) { w.bytes.append(contentsOf: $0) }
        }
    }

    /// Decodes one tagged value.
    static func decodeValue(_ r: inout ByteReader) throws -> Value {
        let tag = try r.byte()
        switch tag {
        case 0: return .null
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3: return .int(try r.signed())
        case 4: return .double(Double(bitPattern: try r.fixed64()))
        case 5:
            let text = try r.string()
            if text == "NaN" { return .decimal(.nan) }
            guard let d = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw r.damaged("invalid decimal '\(text)'") }
            return .decimal(d)
        case 6: return .string(try r.string())
        case 7: return .bytes(Data(try r.blob()))
        case 8: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try r.fixed64())))
        case 9:
            return .uuid(UUID(uuid: try r.take(16).loadUnaligned(as: uuid_t.self)))
        default:
            throw r.damaged("unknown value tag \(tag)")
        }
    }
}
