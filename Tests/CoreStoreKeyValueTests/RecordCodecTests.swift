import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

@Suite("RecordCodec: exact, versioned, safe on damaged input")
struct RecordCodecTests {
    static func sample() -> Record {
        Record(
            id: RecordID(entity: "Person\0X", key: 42),
            attributes: [
                .null, .bool(true), .bool(false), .int(.min), .int(.max), .double(-0.0), .double(Double(nan: 0x1234, signaling: false)),
                .double(-.infinity), .decimal(Decimal(string: "-123.4500") ?? 0), .decimal(Decimal(UInt64.max)), .string("a\0b é"),
                .bytes(Data()), .bytes(Data([0, 0xFF])), .date(Date(timeIntervalSinceReferenceDate: -0.000123)), .uuid(UUID()),
            ],
            relationships: [[], [RecordID(entity: "Dog", key: 7)], [RecordID(entity: "Cat", key: 1), RecordID(entity: "Dog", key: Int64.max)]]
        )
    }

    @Test("Round-trips exactly, doubles by bit pattern")
    func roundTrip() throws {
        let record = Self.sample()
        let decoded = try RecordCodec.decode(RecordCodec.encode(record))
        #expect(decoded == record)
        #expect(decoded.id.entity == record.id.entity)
        #expect(decoded.relationships.flatMap { $0.map(\.entity) } == record.relationships.flatMap { $0.map(\.entity) })
        for (a, b) in zip(decoded.attributes, record.attributes) {
            if case .double(let x) = a, case .double(let y) = b { #expect(x.bitPattern == y.bitPattern) }
        }
        #expect(try RecordCodec.recordID(RecordCodec.encode(record)).entity == "Person\0X")
    }

    /// Found by the record-codec fuzz target: a date whose interval is a NaN with a payload is
    /// not equal to itself, so only the bytes can show that it round-trips.
    @Test("A NaN date keeps its exact bits through a round trip")
    func nanDateRoundTrip() throws {
        let nan = Double(bitPattern: 0xFFF3_F000_047E_0000)
        let record = Record(id: RecordID(entity: "Item", key: 1), attributes: [.date(Date(timeIntervalSinceReferenceDate: nan))], relationships: [])
        let bytes = RecordCodec.encode(record)
        let decoded = try RecordCodec.decode(bytes)
        #expect(RecordCodec.encode(decoded) == bytes)
        guard case .date(let date) = decoded.attributes[0] else { Issue.record("not a date: \(decoded)"); return }
        #expect(date.timeIntervalSinceReferenceDate.bitPattern == nan.bitPattern)
    }

    @Test("Random records round-trip")
    func randomRoundTrip() throws {
        var g = SeededGenerator(seed: 5)
        for _ in 0..<500 {
            let attributes = (0..<Int.random(in: 0...8, using: &g)).map { _ in
                Int.random(in: 0..<9, using: &g) == 0 ? Value.null : RandomValues.value(kind: Int.random(in: 0..<8, using: &g), &g)
            }
            let record = Record(id: RecordID(entity: RandomValues.string(&g), key: RandomValues.int(&g)), attributes: attributes, relationships: [[RecordID(entity: "E", key: RandomValues.int(&g))]])
            #expect(try RecordCodec.decode(RecordCodec.encode(record)) == record)
        }
    }

    @Test("The sized encoder writes the growing encoder's bytes, and leaves it decimals and 64 KiB of values")
    func sizedEncoderMatchesTheGrowingOne() throws {
        var g = SeededGenerator(seed: 11)
        var sized = 0
        // One buffer for every record, as a commit encodes them: longer records grow it,
        // shorter ones leave bytes of earlier ones after their own.
        var reused: [UInt8] = []
        for n in 0..<2_000 {
            var attributes = (0..<Int.random(in: 0...12, using: &g)).map { _ in
                Int.random(in: 0..<9, using: &g) == 0 ? Value.null : RandomValues.value(kind: Int.random(in: 0..<8, using: &g), &g)
            }
            // Lengths around the one- and two-byte prefixes, and value sizes around the 64 KiB
            // two-byte offsets can reach.
            if n % 7 == 0 { attributes.append(.string(String(repeating: "é", count: Int.random(in: 60...70, using: &g)))) }
            if n % 97 == 0 { attributes.append(.bytes(Data(repeating: 1, count: Int.random(in: 65_500...65_540, using: &g)))) }
            let relationships = (0..<Int.random(in: 0...3, using: &g)).map { _ in
                (0..<Int.random(in: 0...3, using: &g)).map { _ in RecordID(entity: RandomValues.string(&g), key: RandomValues.int(&g)) }
            }
            let record = Record(id: RecordID(entity: RandomValues.string(&g), key: RandomValues.int(&g)), attributes: attributes, relationships: relationships)
            let expected = RecordCodec.encodeGrowing(record)
            #expect(RecordCodec.encode(record) == expected)
            let count = RecordCodec.encode(record, into: &reused)
            #expect(count == expected.count && Array(reused[..<count]) == expected)
            let hasDecimal = attributes.contains { if case .decimal = $0 { return true } else { return false } }
            if let bytes = RecordSizedEncoder.encode(record) {
                #expect(!hasDecimal)
                #expect(bytes == expected)
                sized += 1
            } else {
                #expect(hasDecimal || expected.count > 65_535, "refused a record of \(expected.count) bytes without decimals")
            }
            #expect(try RecordCodec.decode(expected) == record)
        }
        #expect(sized > 1_000)
    }

    @Test("Stored text that is not UTF-8 throws a StorageError, also when its repair keeps its length",
          arguments: [[0xC3], [0xFF, 0x61], [0xF0, 0x9F, 0x98], [0x61, 0xED, 0xA0, 0x80], [0xE2, 0x82]] as [[UInt8]])
    func invalidTextThrows(_ text: [UInt8]) {
        var writer = ByteWriter()
        writer.blob(text)
        #expect(throws: StorageError.self) { try ByteReader.reading(writer.bytes, what: "test") { try $0.string() } }
    }

    @Test("Stored UTF-8 text decodes as it was written", arguments: ["", "a", "é", "日本語", "😀x", "a\0b"])
    func validTextDecodes(_ text: String) throws {
        var writer = ByteWriter()
        writer.string(text)
        #expect(try ByteReader.reading(writer.bytes, what: "test") { try $0.string() } == text)
    }

    @Test("Every truncation throws a StorageError")
    func truncatedInputThrows() {
        let bytes = RecordCodec.encode(Self.sample())
        for n in 0..<bytes.count {
            #expect(throws: StorageError.self) { try RecordCodec.decode(Array(bytes.prefix(n))) }
        }
    }

    @Test("Garbage, trailing bytes and unknown versions throw a StorageError, never trap")
    func garbageThrows() {
        var g = SeededGenerator(seed: 17)
        for _ in 0..<2_000 {
            var bytes = (0..<Int.random(in: 0...40, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
            if Bool.random(using: &g), !bytes.isEmpty { bytes[0] = 1 }
            _ = try? RecordCodec.decode(bytes)
        }
        #expect(throws: StorageError.self) { try RecordCodec.decode([3] + RecordCodec.encode(Self.sample()).dropFirst()) }
        #expect(throws: StorageError.self) { try RecordCodec.decode([0] + RecordCodec.encode(Self.sample()).dropFirst()) }
        #expect(throws: StorageError.self) { try RecordCodec.decode(RecordCodec.encode(Self.sample()) + [0]) }
        #expect(throws: StorageError.self) { try RecordCodec.decode([1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]) }
    }

    @Test("Records of format version 1, as earlier releases wrote them, still decode")
    func formatOneDecodes() throws {
        var g = SeededGenerator(seed: 9)
        for _ in 0..<200 {
            let attributes = (0..<Int.random(in: 0...8, using: &g)).map { _ in RandomValues.value(kind: Int.random(in: 0..<8, using: &g), &g) }
            let record = Record(id: RecordID(entity: "E", key: RandomValues.int(&g)), attributes: attributes, relationships: [[RecordID(entity: "F", key: 1)]])
            let old = RecordCodec.encodeUnchecksummed(record)
            #expect(old[0] == 1)
            #expect(try RecordCodec.decode(old) == record)
            #expect(try RecordCodec.recordID(old) == record.id)
        }
        let sample = Self.sample()
        #expect(try RecordCodec.decode(RecordCodec.encodeUnchecksummed(sample)) == sample)
    }

    @Test("Every single changed bit of a record is refused by its checksum")
    func everyFlippedBitThrows() {
        let bytes = RecordCodec.encode(Self.sample())
        #expect(bytes[0] == RecordCodec.formatVersion)
        for bit in 0..<(bytes.count * 8) {
            var damaged = bytes
            damaged[bit / 8] ^= 1 << (bit % 8)
            #expect(throws: StorageError.self, "bit \(bit)") { try RecordCodec.decode(damaged) }
            #expect(throws: StorageError.self, "bit \(bit)") { try RecordCodec.recordID(damaged) }
        }
    }

    @Test("Values past 64 KiB take 4-byte offsets and read back, whole and in place")
    func wideOffsets() throws {
        let big = String(repeating: "x", count: 70_000)
        let record = Record(id: RecordID(entity: "E", key: 1), attributes: [.string(big), .int(-5), .string(big), .double(1.5)], relationships: [])
        let bytes = RecordCodec.encode(record)
        let names = EntityNames(schema: StoreSchema(modelVersion: "V", schemaHash: "", entities: []))
        // version, entity "E" (2 bytes), key, count, then the width.
        #expect(bytes[5] == 4)
        #expect(try RecordCodec.decode(bytes) == record)
        let fields = RecordFields(checksChecksums: true)
        try bytes.withUnsafeBytes { buffer in
            _ = try fields.loadHeader(buffer, names: names)
            #expect(try fields.attribute(3) == .double(1.5))
            #expect(try fields.attribute(1) == .int(-5))
            #expect(try fields.attribute(2) == .string(big))
        }
        let small = RecordCodec.encode(Record(id: RecordID(entity: "E", key: 1), attributes: [.int(-5), .string(big)], relationships: []))
        #expect(small[5] == 2)
    }

    @Test("A table of 8-byte offsets, as records past 4 GiB get, reads back whole and in place")
    func eightByteOffsets() throws {
        let record = Record(id: RecordID(entity: "E", key: 1), attributes: [.int(7), .string("abc"), .null, .double(2)], relationships: [[RecordID(entity: "F", key: 2)]])
        let narrow = RecordCodec.encode(record)
        #expect(narrow[5] == 2)
        // The same record with its 2-byte table (bytes 6..<14) rewritten in 8 bytes per offset.
        var wide = Array(narrow[..<5]) + [8]
        for i in 0..<4 { wide += (0..<8).map { $0 < 2 ? narrow[6 + 2 * i + $0] : 0 } }
        wide += narrow[14..<(narrow.count - 4)]
        let checksum = wide.withUnsafeBytes { CRC32C.checksum($0) }
        withUnsafeBytes(of: checksum.littleEndian) { wide.append(contentsOf: $0) }
        #expect(try RecordCodec.decode(wide) == record)
        let fields = RecordFields(checksChecksums: true)
        try wide.withUnsafeBytes { buffer in
            _ = try fields.loadHeader(buffer, names: EntityNames(schema: StoreSchema(modelVersion: "V", schemaHash: "", entities: [])))
            #expect(try fields.attribute(3) == .double(2))
            #expect(try fields.attribute(1) == .string("abc"))
        }
    }

    /// A record key of ten varint bytes whose last byte holds more than the top bit (a value
    /// past 64 bits): refused by the whole-record decoder and by the in-place header read, in
    /// both formats, never read as another key.
    @Test("A varint past 64 bits is refused, also under a matching checksum", arguments: [1, 2] as [UInt8])
    func overlongVarintThrows(_ version: UInt8) throws {
        // Key Int64.min zig-zags to UInt64.max: ten bytes, the last one 0x01.
        let record = Record(id: RecordID(entity: "E", key: .min), attributes: [.int(1)], relationships: [])
        var bytes = version == 1 ? RecordCodec.encodeUnchecksummed(record) : RecordCodec.encode(record)
        // version, entity (length 1 + "E"), then the key's ten bytes.
        #expect(bytes[12] == 0x01)
        bytes[12] = 0x02
        if version == RecordCodec.formatVersion {
            bytes.removeLast(4)
            let checksum = bytes.withUnsafeBytes { CRC32C.checksum($0) }
            withUnsafeBytes(of: checksum.littleEndian) { bytes.append(contentsOf: $0) }
        }
        #expect(throws: StorageError.self) { try RecordCodec.decode(bytes) }
        let names = EntityNames(schema: StoreSchema(modelVersion: "V", schemaHash: "", entities: []))
        let fields = RecordFields(checksChecksums: true)
        #expect(throws: StorageError.self) {
            try bytes.withUnsafeBytes { buffer in _ = try fields.loadHeader(buffer, names: names) }
        }
    }

    /// A record whose checksum matches but whose offsets or width were written wrong (only a
    /// bug or a forged file does that): decoding names the problem, reading in place never traps.
    @Test("Offsets that disagree with the values throw, also under a matching checksum")
    func inconsistentOffsetsThrow() throws {
        let record = Record(id: RecordID(entity: "E", key: 1), attributes: [.int(1), .string("abc"), .bool(true)], relationships: [])
        let bytes = RecordCodec.encode(record)
        let names = EntityNames(schema: StoreSchema(modelVersion: "V", schemaHash: "", entities: []))
        // The table starts after version, entity (2), key (1), count (1) and width (1).
        for (position, value) in [(6, UInt8(1)), (8, 0xFF), (9, 0xFF), (5, 3), (5, 0), (5, 8), (4, 200)] as [(Int, UInt8)] {
            var forged = Array(bytes.dropLast(4))
            forged[position] = value
            let checksum = forged.withUnsafeBytes { CRC32C.checksum($0) }
            withUnsafeBytes(of: checksum.littleEndian) { forged.append(contentsOf: $0) }
            #expect(throws: StorageError.self, "byte \(position) = \(value)") { try RecordCodec.decode(forged) }
            let fields = RecordFields(checksChecksums: true)
            forged.withUnsafeBytes { buffer in
                // (The schema lacks "E": the header loads with no entity index.)
                do { _ = try fields.loadHeader(buffer, names: names) } catch { return }
                for ordinal in 0..<4 { _ = try? fields.attribute(ordinal) }
                #expect(throws: StorageError.self, "byte \(position) = \(value), whole record in place") { try fields.record(names: names) }
            }
        }
        // A byte after the relationships, under a matching checksum.
        var trailing = Array(bytes.dropLast(4)) + [0]
        let checksum = trailing.withUnsafeBytes { CRC32C.checksum($0) }
        withUnsafeBytes(of: checksum.littleEndian) { trailing.append(contentsOf: $0) }
        #expect(throws: StorageError.self) { try RecordCodec.decode(trailing) }
        let fields = RecordFields(checksChecksums: true)
        try trailing.withUnsafeBytes { buffer in
            _ = try fields.loadHeader(buffer, names: names)
            #expect(try fields.attribute(1) == .string("abc"))
            #expect(throws: StorageError.self) { try fields.record(names: names) }
        }
    }
}
