import Foundation
import CoreStoreStorage

/// The compact, versioned, checksummed binary form of a whole `Record`: what a record key's
/// value holds.
///
/// Layout of format version 2, which every write uses (varints are LEB128; signed ones zig-zag):
/// ```
/// version (1 byte = 2)
/// entity (varint length + UTF-8)      — first, so a scan can skip other entities cheaply
/// key (signed varint)
/// attribute count n (varint)
/// offset width w (1 byte: 2; 4 when the values before the last one take 64 KiB or more; 8 past 4 GiB)
/// n offsets of w bytes, little-endian — where each attribute's value starts, counted from
///   the first value, so that a scan reads any single attribute without passing the others
/// n tagged values:
///   0 nil · 1 false · 2 true · 3 int (signed varint) · 4 double (8-byte bit pattern)
///   5 decimal (its exact description) · 6 string (UTF-8, NUL kept) · 7 bytes
///   8 date (bit pattern of timeIntervalSinceReferenceDate) · 9 uuid (16 bytes)
/// relationship count, then per relationship: destination count, then per destination
///   its entity (length + UTF-8) and key (signed varint)
/// CRC-32C of every byte before it (4 bytes, little-endian)
/// ```
/// Format version 1, written by earlier releases, is the same without the offset width, the
/// offsets and the checksum; it is still read. A record is checked against its checksum before
/// any of it is used, so a byte the disk changed is refused instead of read as another value.
///
/// Values round-trip exactly: doubles by bit pattern (NaN payloads and `-0.0` included), strings
/// byte for byte. Decoding damaged bytes throws a `StorageError` and never traps.
public enum RecordCodec {
    /// The format version every write uses, written as the first byte.
    public static let formatVersion: UInt8 = 2
    /// The format version without offsets or checksum, written by earlier releases.
    static let unchecksummedVersion: UInt8 = 1
    /// The size of the checksum that ends a record of ``formatVersion``.
    static let checksumSize = 4

    /// The bytes of `record`, in ``formatVersion``.
    public static func encode(_ record: Record) -> [UInt8] {
        RecordSizedEncoder.encode(record) ?? encodeGrowing(record)
    }

    /// Writes the bytes of `record` at the start of `buffer`, which grows when it is too short,
    /// and returns their count (the bytes after them are left as they were): ``encode(_:)``
    /// for a caller that reuses one buffer for many records.
    static func encode(_ record: Record, into buffer: inout [UInt8]) -> Int {
        withUnsafePointer(to: record) { encode(recordAt: $0, into: &buffer) }
    }

    /// ``encode(_:into:)`` for the record at `record`, read in place: a commit's records lie in
    /// its change set's arrays, and passing one by value would copy it (retaining and releasing
    /// its arrays) per record.
    static func encode(recordAt record: UnsafePointer<Record>, into buffer: inout [UInt8]) -> Int {
        if let count = RecordSizedEncoder.encode(recordAt: record, into: &buffer) { return count }
        let bytes = encodeGrowing(record.pointee)
        if buffer.count < bytes.count { buffer.append(contentsOf: repeatElement(0, count: bytes.count - buffer.count)) }
        buffer.replaceSubrange(0..<bytes.count, with: bytes)
        return bytes.count
    }

    /// The bytes of `record`, in ``formatVersion``, appended to a growing buffer: for every
    /// record, and the one path for those ``RecordSizedEncoder`` leaves (decimals, 64 KiB of
    /// values).
    static func encodeGrowing(_ record: Record) -> [UInt8] {
        var w = ByteWriter()
        let count = record.attributes.count
        // A guess that fits typical records, so the buffer is not regrown several times.
        w.bytes.reserveCapacity(40 + record.id.entity.utf8.count + count * 14)
        w.byte(formatVersion)
        w.string(record.id.entity)
        w.signed(record.id.key)
        w.varint(UInt64(count))
        let widthPosition = w.bytes.count
        w.byte(2)
        let table = w.bytes.count
        w.bytes.append(contentsOf: repeatElement(0, count: count * 2))
        let values = w.bytes.count
        // Offsets are written in 2 bytes; once one does not fit, all of them are kept here and
        // the table is widened at the end (a record with 64 KiB before its last value).
        var wideOffsets: [Int] = []
        for (i, value) in record.attributes.enumerated() {
            let offset = w.bytes.count - values
            if wideOffsets.isEmpty && offset <= Int(UInt16.max) {
                w.bytes[table + 2 * i] = UInt8(truncatingIfNeeded: offset)
                w.bytes[table + 2 * i + 1] = UInt8(truncatingIfNeeded: offset >> 8)
            } else {
                if wideOffsets.isEmpty {
                    wideOffsets = (0..<i).map { Int(w.bytes[table + 2 * $0]) | Int(w.bytes[table + 2 * $0 + 1]) << 8 }
                }
                wideOffsets.append(offset)
            }
            encode(value, into: &w)
        }
        encodeRelationships(record.relationships, into: &w)
        if !wideOffsets.isEmpty {
            w.bytes = widened(w.bytes, widthPosition: widthPosition, values: values, offsets: wideOffsets)
        }
        let checksum = w.bytes.withUnsafeBytes { CRC32C.checksum($0) }
        withUnsafeBytes(of: checksum.littleEndian) { w.bytes.append(contentsOf: $0) }
        return w.bytes
    }

    /// `bytes` with the offset table that starts after `widthPosition` replaced by `offsets` in
    /// 4 bytes each (8 when the last is 4 GiB or more).
    private static func widened(_ bytes: [UInt8], widthPosition: Int, values: Int, offsets: [Int]) -> [UInt8] {
        let width = (offsets.last ?? 0) <= Int(UInt32.max) ? 4 : 8
        var result = Array(bytes[..<widthPosition])
        result.reserveCapacity(bytes.count + offsets.count * (width - 2) + checksumSize)
        result.append(UInt8(width))
        for offset in offsets {
            for b in 0..<width { result.append(UInt8(truncatingIfNeeded: offset >> (8 * b))) }
        }
        result += bytes[values...]
        return result
    }

    /// The bytes of `record` in format version 1, as earlier releases wrote it: for the tests
    /// that show such records are still read.
    static func encodeUnchecksummed(_ record: Record) -> [UInt8] {
        var w = ByteWriter()
        w.byte(unchecksummedVersion)
        w.string(record.id.entity)
        w.signed(record.id.key)
        w.varint(UInt64(record.attributes.count))
        for value in record.attributes { encode(value, into: &w) }
        encodeRelationships(record.relationships, into: &w)
        return w.bytes
    }

    private static func encodeRelationships(_ relationships: [[RecordID]], into w: inout ByteWriter) {
        w.varint(UInt64(relationships.count))
        for destinations in relationships {
            w.varint(UInt64(destinations.count))
            for id in destinations {
                w.string(id.entity)
                w.signed(id.key)
            }
        }
    }

    /// The record `bytes` hold; throws when they are damaged or of an unknown version.
    public static func decode(_ bytes: [UInt8]) throws -> Record {
        try bytes.withUnsafeBytes { try decode($0, names: nil) }
    }

    /// The record `bytes` hold, with entity names that `names` knows taken from it (no new
    /// string per record).
    /// With `checksChecksum` `false` (a reader whose engine verified the bytes, see
    /// ``KeyValueReader/verifiesStoredBytes``) the stored checksum is skipped, not checked.
    static func decode(_ bytes: UnsafeRawBufferPointer, names: EntityNames?, checksChecksum: Bool = true) throws -> Record {
        let (payload, version) = try verified(bytes, checksChecksum: checksChecksum)
        var r = ByteReader(payload, what: "record", position: 1)
        let entity = try entityName(&r, names: names)
        let id = RecordID(entity: entity, key: try r.signed())
        return try body(&r, version: version, id: id, names: names)
    }

    /// The bytes of a record without its checksum, once the checksum matched, and the record's
    /// format version; throws for an unknown version or a checksum that does not match. With
    /// `checksChecksum` `false` the checksum is left unchecked (the engine verified the bytes).
    @inline(__always)
    static func verified(_ bytes: UnsafeRawBufferPointer, checksChecksum: Bool = true) throws -> (payload: UnsafeRawBufferPointer, version: UInt8) {
        guard let version = bytes.first else { throw KeyValueFormatError.damaged("record", "no bytes") }
        switch version {
        case formatVersion:
            guard bytes.count > checksumSize else { throw KeyValueFormatError.damaged("record", "too short for its checksum (\(bytes.count) bytes)") }
            let payload = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - checksumSize)])
            let stored = bytes.loadUnaligned(fromByteOffset: payload.count, as: UInt32.self)
            guard !checksChecksum || UInt32(littleEndian: stored) == CRC32C.checksum(payload) else {
                throw KeyValueFormatError.damaged("record", "its checksum does not match its \(bytes.count) bytes")
            }
            return (payload, version)
        case unchecksummedVersion:
            return (bytes, version)
        default:
            throw KeyValueFormatError.damaged("record", "unknown record format version \(version)")
        }
    }

    /// The rest of a record whose header `r` has read: its attributes and relationships, and
    /// the check that nothing follows them. In format version 2 each attribute must start where
    /// its offset says.
    static func body(_ r: inout ByteReader, version: UInt8, id: RecordID, names: EntityNames?) throws -> Record {
        let attributeCount = try r.count()
        var offsets = RecordOffsetTable.none
        if version == formatVersion { offsets = try RecordOffsetTable(&r, count: attributeCount) }
        let valuesStart = r.position
        // Reserved and appended: `Array(unsafeUninitializedCapacity:)` allocates through the
        // standard library's unspecialized path, which looked the array's type metadata up
        // anew for every record (over 600 instructions a record).
        var attributes: [Value] = []
        attributes.reserveCapacity(attributeCount)
        while attributes.count < attributeCount {
            if offsets.width != 0, offsets.offset(attributes.count) != r.position - valuesStart {
                throw r.damaged("attribute \(attributes.count) does not start where its offset says")
            }
            attributes.append(try decodeValue(&r))
        }
        let relationships = try relationships(&r, names: names)
        guard r.isAtEnd else { throw r.damaged("trailing bytes") }
        return Record(id: id, attributes: attributes, relationships: relationships)
    }

    /// A record's relationships, which follow its attributes: per relationship, its
    /// destinations' entities and keys.
    static func relationships(_ r: inout ByteReader, names: EntityNames?) throws -> [[RecordID]] {
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
        return relationships
    }

    /// The identifier of the record `bytes` hold, once its checksum matched, without decoding
    /// the rest.
    public static func recordID(_ bytes: [UInt8]) throws -> RecordID {
        try bytes.withUnsafeBytes { buffer in
            var r = ByteReader(try verified(buffer).payload, what: "record", position: 1)
            let entity = try r.string()
            return RecordID(entity: entity, key: try r.signed())
        }
    }

    /// A length-prefixed entity name, reusing `names`' string when it has that entity.
    static func entityName(_ r: inout ByteReader, names: EntityNames?) throws -> String {
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
