import Foundation
import CoreStoreStorage

/// The entity names of a schema with their UTF-8 bytes, so that decoding a record reuses the
/// schema's `String`s instead of allocating and validating a new one per record.
struct EntityNames: Sendable {
    /// Every entity name, in schema order.
    let names: [String]
    /// Every name's UTF-8 bytes, one after the other.
    private let utf8: [UInt8]
    /// Where `names[i]`'s bytes lie in ``utf8``.
    private let ranges: [Range<Int>]

    /// The names of `schema`'s entities.
    init(schema: StoreSchema) {
        names = schema.entities.map(\.name)
        var utf8: [UInt8] = []
        ranges = names.map { name in
            let start = utf8.count
            utf8 += name.utf8
            return start..<utf8.count
        }
        self.utf8 = utf8
    }

    /// The index of the entity whose name is `bytes`, `nil` for a name the schema lacks.
    func index(of bytes: UnsafeRawBufferPointer) -> Int? {
        // Schemas have few entities: a linear scan with a length check beats hashing the bytes.
        for i in ranges.indices where matches(i, bytes) { return i }
        return nil
    }

    /// Whether `bytes` spell the name at `index`.
    @inline(__always)
    func matches(_ index: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let range = ranges[index]
        guard range.count == bytes.count else { return false }
        let count = bytes.count
        if count == 0 { return true }
        // Names are short: two overlapping loads of eight (or four) bytes cover up to sixteen
        // (or eight) bytes, which costs less than memcmp or a byte loop.
        return utf8.withUnsafeBytes { all in
            let name = all.baseAddress.unsafelyUnwrapped + range.lowerBound
            let other = bytes.baseAddress.unsafelyUnwrapped
            if count >= 8 {
                var i = 0
                while i + 8 < count {
                    if name.loadUnaligned(fromByteOffset: i, as: UInt64.self) != other.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
                    i += 8
                }
                return name.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) == other.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            }
            if count >= 4 {
                return name.loadUnaligned(as: UInt32.self) == other.loadUnaligned(as: UInt32.self)
                    && name.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self) == other.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            }
            var i = 0
            while i < count {
                if name.load(fromByteOffset: i, as: UInt8.self) != other.load(fromByteOffset: i, as: UInt8.self) { return false }
                i += 1
            }
            return true
        }
    }

    /// The name `bytes` spell: the schema's own string when it has that entity, else a new one.
    func name(_ bytes: UnsafeRawBufferPointer, reader: ByteReader) throws -> String {
        if let i = index(of: bytes) { return names[i] }
        guard let s = StoredText.validated(bytes) else { throw reader.damaged("invalid UTF-8") }
        return s
    }
}

/// A record's bytes parsed just far enough to read single attributes: the concrete entity, the
/// record key and where each attribute value starts — from the record's offset table (format
/// version 2), or found on first use by passing the values before it (version 1). A fetch
/// filters, sorts and aggregates on these and decodes a whole ``Record`` (which checks the
/// structure of all of it) only for the records it returns. The checksum of a version 2 record
/// is checked when its header is loaded, before any attribute is read.
///
/// The bytes are borrowed from the engine's read (see ``KeyValueReader/scanValues(from:to:_:)``)
/// and valid only until the scan moves on. One instance is reused for every record of a scan:
/// its offset table is allocated once and grown when a record has more attributes, and it is a
/// class so that reading an attribute mutates it in place (no copy-on-write checks per value).
final class RecordFields {
    // One scan uses an instance, on one thread, and no method re-enters another, so accesses
    // never overlap: the runtime exclusivity checks are switched off for the mutable state.
    /// The record's bytes as stored, borrowed.
    @exclusivity(unchecked) private(set) var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    /// The record's bytes without their checksum: what its values are read from.
    @exclusivity(unchecked) private var payload = UnsafeRawBufferPointer(start: nil, count: 0)
    /// The record's format version.
    @exclusivity(unchecked) private var version: UInt8 = 0
    /// The offsets a version 2 record stores; ``RecordOffsetTable/none`` before it is read and
    /// for version 1.
    @exclusivity(unchecked) private var storedOffsets = RecordOffsetTable.none
    /// Where a version 2 record's first value starts.
    @exclusivity(unchecked) private var valuesStart = 0
    /// A version 2 record's values (from ``valuesStart`` to the payload's end), set with its
    /// offset table, for ``number(_:)``'s direct path. Read only while ``storedOffsets`` is the
    /// current record's table (``attributeCount`` is `-1` until then, and a version 1 record
    /// has no table): what it held for an earlier record is never used.
    @exclusivity(unchecked) private var values = UnsafeRawBufferPointer(start: nil, count: 0)
    /// The index of the record's entity in ``EntityNames``; `nil` when the schema lacks it.
    @exclusivity(unchecked) private(set) var entityIndex: Int?
    /// The record key.
    @exclusivity(unchecked) private(set) var key: Int64 = 0
    /// The offset right after the header, where the attribute count starts.
    @exclusivity(unchecked) private var headerEnd = 0
    /// The number of attribute values the record holds; `-1` until an attribute is read.
    @exclusivity(unchecked) private var attributeCount = -1
    /// For a version 1 record, the offset of each attribute's tag byte, for the first
    /// ``foundCount`` attributes.
    @exclusivity(unchecked) private var offsets: UnsafeMutablePointer<Int>
    /// How many offsets ``offsets`` has room for.
    @exclusivity(unchecked) private var capacity: Int
    /// The ordinal of the attribute last read from this record, `-1` for none.
    @exclusivity(unchecked) private var cachedOrdinal = -1
    /// The value of the attribute at ``cachedOrdinal``.
    @exclusivity(unchecked) private var cachedValue = Value.null
    /// How many attributes' offsets are known.
    @exclusivity(unchecked) private var foundCount = 0
    /// Where the attribute after the last one found starts.
    @exclusivity(unchecked) private var nextOffset = 0

    /// Whether ``loadHeader(_:names:)`` checks each record's checksum: `false` only for bytes
    /// from a reader that verified them itself (``KeyValueReader/verifiesStoredBytes``).
    private let checksChecksums: Bool

    /// Fields for records whose checksums are checked when `checksChecksums`.
    init(checksChecksums: Bool) {
        self.checksChecksums = checksChecksums
        capacity = 16
        offsets = .allocate(capacity: capacity)
    }

    deinit { offsets.deallocate() }

    /// Checks the checksum of `bytes` (unless the reader verified them) and parses their header
    /// (version, entity, key); returns the entity's index in `names`. Throws when the bytes are
    /// damaged or of an unknown version.
    func loadHeader(_ bytes: UnsafeRawBufferPointer, names: EntityNames) throws -> Int? {
        let (payload, version) = try RecordCodec.verified(bytes, checksChecksum: checksChecksums)
        self.bytes = bytes
        self.payload = payload
        self.version = version
        foundCount = 0
        attributeCount = -1
        cachedOrdinal = -1
        if version == RecordCodec.formatVersion, loadCommonHeader(names: names) { return entityIndex }
        var r = ByteReader(payload, what: "record", position: 1)
        let name = try r.blob()
        // A scan meets mostly one entity: try the previous record's first.
        if let previous = entityIndex, names.matches(previous, name) {} else { entityIndex = names.index(of: name) }
        key = try r.signed()
        headerEnd = r.position
        return entityIndex
    }

    /// Parses the header and offset table of a version 2 record of the common shape (an entity
    /// name and an attribute count below 128 bytes, a key of at most ten bytes, and enough bytes
    /// after it) with direct loads, accepting exactly what the checked reader accepts there.
    /// Returns `false` for any other shape, with the header left for the checked reader, which
    /// throws the precise error for damaged bytes.
    @inline(__always)
    private func loadCommonHeader(names: EntityNames) -> Bool {
        guard let base = payload.baseAddress, payload.count > 2 else { return false }
        let end = payload.count
        let nameLength = Int(base.load(fromByteOffset: 1, as: UInt8.self))
        var p = 2 + nameLength
        guard nameLength < 0x80, let zigzag = ByteReader.varint(base, &p, end: end), end - p >= 2 else { return false }
        let count = Int(base.load(fromByteOffset: p, as: UInt8.self))
        let width = Int(base.load(fromByteOffset: p + 1, as: UInt8.self))
        let table = p + 2
        guard count < 0x80, count <= end - (p + 1), width == 2 || width == 4 || width == 8,
              count * width <= end - table else { return false }
        let name = UnsafeRawBufferPointer(start: base + 2, count: nameLength)
        // A scan meets mostly one entity: try the previous record's first.
        if let previous = entityIndex, names.matches(previous, name) {} else { entityIndex = names.index(of: name) }
        key = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
        headerEnd = p
        storedOffsets = RecordOffsetTable(base: base + table, width: width, count: count)
        valuesStart = table + count * width
        values = UnsafeRawBufferPointer(start: base + valuesStart, count: end - valuesStart)
        attributeCount = count
        return true
    }

    /// The value of the attribute at `ordinal`; `.null` past the stored attributes (the record's
    /// shape is checked when it is written, so this does not happen for stored records). A
    /// version 2 record finds it through its offset table; a version 1 record parses the
    /// attributes up to `ordinal`, each checking its bounds. The last attribute read is kept
    /// until the next record, since a predicate and a sort often read the same one.
    func attribute(_ ordinal: Int) throws -> Value {
        if ordinal == cachedOrdinal { return cachedValue }
        guard let position = try position(of: ordinal) else { return .null }
        let value = try value(at: position)
        cachedOrdinal = ordinal
        cachedValue = value
        return value
    }

    /// The attribute at `ordinal` when it is stored as an integer or a double, read from the
    /// bytes without making a ``Value``; ``StoredNumber/other`` for any other value (read that
    /// one with ``attribute(_:)``). For scans that compare or add numbers.
    @inline(__always)
    func number(_ ordinal: Int) throws -> StoredNumber {
        // A version 2 record whose offset table is read: the value straight from its offset.
        if ordinal < attributeCount, storedOffsets.width != 0 {
            let offset = storedOffsets.offset(ordinal)
            let count = values.count
            guard offset < count, let base = values.baseAddress else { return try numberChecked(ordinal) }
            return Self.number(at: offset, base, end: count)
        }
        return try numberChecked(ordinal)
    }

    /// ``number(_:)`` for the other records, and for an offset past the bytes (which throws).
    @inline(never)
    private func numberChecked(_ ordinal: Int) throws -> StoredNumber {
        guard let position = try position(of: ordinal) else { return .other }
        return Self.number(at: position, payload.baseAddress.unsafelyUnwrapped, end: payload.count)
    }

    /// The integer or double whose tag is at `position` of the `end` bytes at `base` (the tag
    /// lies below `end`); ``StoredNumber/other`` for any other value, and for one that would
    /// run past `end`.
    @inline(__always)
    private static func number(at position: Int, _ base: UnsafeRawPointer, end: Int) -> StoredNumber {
        switch base.load(fromByteOffset: position, as: UInt8.self) {
        case 3:
            var p = position &+ 1
            if let zigzag = ByteReader.varint(base, &p, end: end) {
                return .integer(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
            }
        case 4 where end &- position >= 9:
            return .double(Double(bitPattern: UInt64(bigEndian: base.loadUnaligned(fromByteOffset: position &+ 1, as: UInt64.self))))
        default:
            break
        }
        return .other
    }

    /// Where the value of the attribute at `ordinal` starts (its tag byte, below the payload's
    /// end); `nil` past the stored attributes.
    @inline(__always)
    private func position(of ordinal: Int) throws -> Int? {
        if attributeCount < 0 { try readAttributeCount() }
        guard ordinal < attributeCount else { return nil }
        if storedOffsets.width != 0 {
            let offset = storedOffsets.offset(ordinal)
            guard offset < payload.count - valuesStart else {
                throw KeyValueFormatError.damaged("record", "attribute \(ordinal)'s offset \(offset) is past its \(payload.count) bytes")
            }
            return valuesStart + offset
        }
        if ordinal >= foundCount { try find(through: ordinal) }
        return offsets[ordinal]
    }

    /// The value whose tag is at `position`, below the payload's end.
    @inline(__always)
    private func value(at position: Int) throws -> Value {
        try valueAndEnd(at: position).value
    }

    /// The value whose tag is at `position`, below the payload's end, and where it ends:
    /// numbers, dates and booleans straight from the bytes, the rest (and anything running past
    /// the end) through the checked reader.
    @inline(__always)
    private func valueAndEnd(at position: Int) throws -> (value: Value, end: Int) {
        let base = payload.baseAddress.unsafelyUnwrapped
        let left = payload.count - position
        switch base.load(fromByteOffset: position, as: UInt8.self) {
        case 0: return (.null, position + 1)
        case 1: return (.bool(false), position + 1)
        case 2: return (.bool(true), position + 1)
        case 3:
            var p = position + 1
            if let zigzag = ByteReader.varint(base, &p, end: payload.count) {
                return (.int(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)), p)
            }
        case 4 where left >= 9:
            return (.double(Double(bitPattern: UInt64(bigEndian: base.loadUnaligned(fromByteOffset: position + 1, as: UInt64.self)))), position + 9)
        case 8 where left >= 9:
            let interval = Double(bitPattern: UInt64(bigEndian: base.loadUnaligned(fromByteOffset: position + 1, as: UInt64.self)))
            return (.date(Date(timeIntervalSinceReferenceDate: interval)), position + 9)
        case 6 where left >= 2:
            // A string of fewer than 128 bytes (a one-byte length) that lies inside the bytes;
            // invalid UTF-8 goes on to the checked reader, which throws.
            let length = Int(base.load(fromByteOffset: position + 1, as: UInt8.self))
            if length < 0x80, length <= left - 2,
               let text = StoredText.validated(UnsafeRawBufferPointer(start: base + position + 2, count: length)) {
                return (.string(text), position + 2 + length)
            }
        default:
            break
        }
        var r = ByteReader(payload, what: "record", position: position)
        let value = try RecordCodec.decodeValue(&r)
        return (value, r.position)
    }

    /// Reads the attribute count after the header, and a version 2 record's offset table.
    private func readAttributeCount() throws {
        var r = ByteReader(payload, what: "record", position: headerEnd)
        let count = try r.count()
        if version == RecordCodec.formatVersion {
            storedOffsets = try RecordOffsetTable(&r, count: count)
            valuesStart = r.position
            values = UnsafeRawBufferPointer(rebasing: payload[valuesStart...])
        } else {
            storedOffsets = .none
            nextOffset = r.position
        }
        attributeCount = count
    }

    /// Finds the offsets of the attributes up to `ordinal`, which is below the count.
    private func find(through ordinal: Int) throws {
        if ordinal >= capacity {
            let grown = UnsafeMutablePointer<Int>.allocate(capacity: max(ordinal + 1, capacity * 2))
            grown.update(from: offsets, count: foundCount)
            offsets.deallocate()
            offsets = grown
            capacity = max(ordinal + 1, capacity * 2)
        }
        skipFast(through: ordinal)
        if foundCount > ordinal { return }
        // What the fast loop left (a long length, damaged bytes) goes value by value through
        // the checked reader, which throws the precise error.
        var r = ByteReader(payload, what: "record", position: nextOffset)
        while foundCount <= ordinal {
            offsets[foundCount] = r.position
            foundCount += 1
            try RecordCodec.skipValue(&r)
        }
        nextOffset = r.position
    }

    /// Records the offsets of values up to `ordinal` while they are of the common shapes: a
    /// fixed size, a varint, or a length below 128. Stops, before the value, at anything else
    /// and at any value that would end past the bytes.
    @inline(__always)
    private func skipFast(through ordinal: Int) {
        guard let base = payload.baseAddress else { return }
        let end = payload.count
        var p = nextOffset
        values: while foundCount <= ordinal, p < end {
            var q = p + 1
            switch base.load(fromByteOffset: p, as: UInt8.self) {
            case 0, 1, 2:
                break
            case 3:
                // At most nine continuation bytes; the checked reader judges longer ones.
                let last = Swift.min(end, q + 9)
                while q < last, base.load(fromByteOffset: q, as: UInt8.self) >= 0x80 { q += 1 }
                guard q < last else { break values }
                q += 1
            case 4, 8:
                q += 8
            case 9:
                q += 16
            case 5, 6, 7:
                guard q < end else { break values }
                let length = base.load(fromByteOffset: q, as: UInt8.self)
                guard length < 0x80 else { break values }
                q += 1 + Int(length)
            default:
                break values
            }
            guard q <= end else { break values }
            offsets[foundCount] = p
            foundCount += 1
            p = q
        }
        nextOffset = p
    }

    /// The whole record, decoded from after its header: through the offset table the header
    /// load read, or by ``RecordCodec``'s checked decoder for a record without one.
    func record(names: EntityNames) throws -> Record {
        let id = RecordID(entity: try entityIndex.map { names.names[$0] } ?? entityName(), key: key)
        if storedOffsets.width != 0 && attributeCount >= 0 { return try recordThroughOffsets(id: id, names: names) }
        var r = ByteReader(payload, what: "record", position: headerEnd)
        return try RecordCodec.body(&r, version: version, id: id, names: names)
    }

    /// The record, its values read one after the other with direct loads where they are of the
    /// common kinds: the checks of ``RecordCodec/body(_:version:id:names:)`` (each value starts
    /// where its offset says, none runs past the bytes, nothing follows the relationships).
    private func recordThroughOffsets(id: RecordID, names: EntityNames) throws -> Record {
        var attributes: [Value] = []
        attributes.reserveCapacity(attributeCount)
        var position = valuesStart
        while attributes.count < attributeCount {
            guard storedOffsets.offset(attributes.count) == position - valuesStart else {
                throw KeyValueFormatError.damaged("record", "attribute \(attributes.count) does not start where its offset says at byte \(position) of \(payload.count)")
            }
            guard position < payload.count else {
                throw KeyValueFormatError.damaged("record", "unexpected end at byte \(position) of \(payload.count)")
            }
            let (value, end) = try valueAndEnd(at: position)
            attributes.append(value)
            position = end
        }
        // The common ending, a zero relationship count as the last byte, without the checked
        // reader: exactly what it accepts there (a count of 0, then nothing).
        if position == payload.count - 1, payload.baseAddress.unsafelyUnwrapped.load(fromByteOffset: position, as: UInt8.self) == 0 {
            return Record(id: id, attributes: attributes, relationships: [])
        }
        var r = ByteReader(payload, what: "record", position: position)
        let relationships = try RecordCodec.relationships(&r, names: names)
        guard r.isAtEnd else { throw r.damaged("trailing bytes") }
        return Record(id: id, attributes: attributes, relationships: relationships)
    }

    /// The entity name of a record whose entity the schema lacks.
    private func entityName() throws -> String {
        var r = ByteReader(payload, what: "record", position: 1)
        return try r.string()
    }
}
