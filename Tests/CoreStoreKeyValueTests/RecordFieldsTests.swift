import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// `RecordFields`: single attributes read from a record's bytes are exactly the decoded record's,
/// in any order of access, and damaged bytes throw instead of trapping or answering wrong.
@Suite("RecordFields: single attributes from record bytes")
struct RecordFieldsTests {
    static let names = EntityNames(schema: StoreSchema(modelVersion: "V1", schemaHash: "", entities: []))

    /// Record keys whose varints take every length, negative ones and both extremes included.
    static let keys: [Int64] = [0, 1, -1, 63, -64, 64, 1_000_003, -1_000_003, 1 << 40, -(1 << 40), .max, .min]

    /// A record whose values take every path: fixed sizes, varints of every length (up to ten
    /// bytes), and lengths above 127 bytes; every fifth one has over 256 attributes (an
    /// attribute count of two bytes).
    static func record(seed: UInt64) -> Record {
        var g = SeededGenerator(seed: seed)
        var attributes = RecordCodecTests.sample().attributes
        attributes += [.string(String(repeating: "x", count: 300)), .bytes(Data(repeating: 7, count: 128)), .int(-1), .int(1 << 62)]
        for _ in 0..<(seed % 5 == 4 ? 250 : 20) {
            attributes.append(Int.random(in: 0..<9, using: &g) == 0 ? Value.null : RandomValues.value(kind: Int.random(in: 0..<8, using: &g), &g))
        }
        attributes.shuffle(using: &g)
        return Record(id: RecordID(entity: "E", key: keys[Int(seed) % keys.count]), attributes: attributes, relationships: [])
    }

    /// The bytes of `record` in format `version`: 2 as written today, 1 as earlier releases did.
    static func encode(_ record: Record, version: UInt8) -> [UInt8] {
        version == 1 ? RecordCodec.encodeUnchecksummed(record) : RecordCodec.encode(record)
    }

    @Test("Every attribute equals the decoded record's, read forwards, backwards and at random",
          arguments: 0..<20 as Range<UInt64>, [1, 2] as [UInt8])
    func attributesMatchTheDecodedRecord(_ seed: UInt64, _ version: UInt8) throws {
        let record = Self.record(seed: seed)
        let bytes = Self.encode(record, version: version)
        #expect(bytes[0] == version)
        var g = SeededGenerator(seed: seed + 100)
        let orders = [Array(record.attributes.indices), Array(record.attributes.indices.reversed()), record.attributes.indices.shuffled(using: &g)]
        let fields = RecordFields(checksChecksums: true)
        for order in orders {
            try bytes.withUnsafeBytes { buffer in
                _ = try fields.loadHeader(buffer, names: Self.names)
                #expect(fields.key == record.id.key)
                for i in order {
                    #expect(Value.storageOrder(try fields.attribute(i), record.attributes[i]) == 0, "attribute \(i)")
                }
                #expect(try fields.attribute(record.attributes.count) == .null)
                #expect(try fields.record(names: Self.names) == record)
            }
        }
    }

    @Test("number(_:) reads exactly the integers and doubles attribute(_:) reads, and nothing else",
          arguments: 0..<20 as Range<UInt64>, [1, 2] as [UInt8])
    func numbersMatchTheAttributes(_ seed: UInt64, _ version: UInt8) throws {
        let record = Self.record(seed: seed)
        let bytes = Self.encode(record, version: version)
        var g = SeededGenerator(seed: seed + 200)
        let fields = RecordFields(checksChecksums: true)
        var integers = 0, doubles = 0
        try bytes.withUnsafeBytes { buffer in
            _ = try fields.loadHeader(buffer, names: Self.names)
            // Interleaved with attribute(_:), whose cache must not change what number(_:) reads.
            for i in record.attributes.indices.shuffled(using: &g) {
                let number = try fields.number(i)
                switch (number, record.attributes[i]) {
                case (.integer(let n), .int(let expected)):
                    #expect(n == expected, "attribute \(i)")
                    integers += 1
                case (.double(let d), .double(let expected)):
                    #expect(d.bitPattern == expected.bitPattern, "attribute \(i)")
                    doubles += 1
                case (.other, let value):
                    if case .int = value { Issue.record("attribute \(i): an integer read as another value") }
                    if case .double = value { Issue.record("attribute \(i): a double read as another value") }
                default:
                    Issue.record("attribute \(i): \(number) for \(record.attributes[i])")
                }
                if Bool.random(using: &g) { _ = try fields.attribute(i) }
            }
            guard case .other = try fields.number(record.attributes.count) else {
                Issue.record("a number past the stored attributes")
                return
            }
        }
        #expect(integers >= 2 && doubles >= 1, "integers \(integers), doubles \(doubles)")
    }

    @Test("A record cut short throws when its last attribute is read, never traps", arguments: [1, 2] as [UInt8])
    func truncatedRecordThrows(_ version: UInt8) throws {
        let record = Self.record(seed: 3)
        let bytes = Self.encode(record, version: version)
        let fields = RecordFields(checksChecksums: true)
        // Format 1: the last value ends right before the one-byte relationship count, so every
        // shorter prefix cuts it (or the header). Format 2: every prefix fails its checksum.
        for n in 0..<(bytes.count - 1) {
            let cut = Array(bytes.prefix(n))
            #expect(throws: StorageError.self, "prefix of \(n) bytes") {
                try cut.withUnsafeBytes { buffer in
                    _ = try fields.loadHeader(buffer, names: Self.names)
                    _ = try fields.attribute(record.attributes.count - 1)
                }
            }
            // Reading it as a number throws, or answers `.other` for the checked reader to judge.
            try? cut.withUnsafeBytes { buffer in
                _ = try fields.loadHeader(buffer, names: Self.names)
                if case .other = try fields.number(record.attributes.count - 1) {} else {
                    Issue.record("prefix of \(n) bytes read as a number")
                }
            }
        }
    }

    @Test("Short strings read from the bytes are the stored ones: empty, ASCII, multi-byte, 127 and 128 bytes",
          arguments: ["", "Ada", "Zoë", "日本語のテキスト", String(repeating: "a", count: 127), String(repeating: "b", count: 128), "e\u{301}"])
    func shortStringsMatch(_ text: String) throws {
        let record = Record(id: RecordID(entity: "E", key: 7), attributes: [.int(1), .string(text), .string(text + "!"), .null], relationships: [])
        let bytes = RecordCodec.encode(record)
        let fields = RecordFields(checksChecksums: true)
        try bytes.withUnsafeBytes { buffer in
            _ = try fields.loadHeader(buffer, names: Self.names)
            #expect(try fields.attribute(1) == .string(text))
            #expect(try fields.attribute(2) == .string(text + "!"))
            #expect(try fields.record(names: Self.names) == record)
        }
    }

    @Test("A short string that is not valid UTF-8 (checksum intact) throws, read alone or with its record")
    func invalidShortStringThrows() throws {
        let record = Record(id: RecordID(entity: "E", key: 7), attributes: [.string("abc")], relationships: [])
        var bytes = RecordCodec.encode(record)
        // The value is tag 6, length 3, then the text: make its middle byte a lone continuation
        // byte, and seal the damage with a checksum that matches.
        let payloadCount = bytes.count - 4
        let start = try #require((0..<(payloadCount - 4)).first { bytes[$0] == 6 && bytes[$0 + 1] == 3 && bytes[$0 + 2] == UInt8(ascii: "a") })
        bytes[start + 3] = 0x80
        let checksum = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[..<payloadCount])) }
        withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange(payloadCount..., with: $0) }
        let fields = RecordFields(checksChecksums: true)
        try bytes.withUnsafeBytes { buffer in
            _ = try fields.loadHeader(buffer, names: Self.names)
            #expect(throws: StorageError.self) { try fields.attribute(0) }
            #expect(throws: StorageError.self) { try fields.record(names: Self.names) }
        }
    }

    @Test("One instance reads numbers from records of every shape one after another: format 1 and 2, short and long headers")
    func numbersAcrossRecordsOfMixedShapes() throws {
        // Seeds 4, 9, 14 and 19 have over 256 attributes (a header read by the checked path);
        // the others have the common short header. Each record is read right after one of
        // another shape, so nothing the previous record set may leak into the next.
        var g = SeededGenerator(seed: 77)
        let cases = ((0..<20) as Range<UInt64>).flatMap { seed in [(seed, UInt8(1)), (seed, UInt8(2))] }.shuffled(using: &g)
        let fields = RecordFields(checksChecksums: true)
        var numbers = 0
        for (seed, version) in cases {
            let record = Self.record(seed: seed)
            let bytes = Self.encode(record, version: version)
            try bytes.withUnsafeBytes { buffer in
                _ = try fields.loadHeader(buffer, names: Self.names)
                for i in record.attributes.indices.shuffled(using: &g) {
                    switch (try fields.number(i), record.attributes[i]) {
                    case (.integer(let n), .int(let expected)) where n == expected: numbers += 1
                    case (.double(let d), .double(let expected)) where d.bitPattern == expected.bitPattern: numbers += 1
                    case (.other, .int), (.other, .double), (.integer, _), (.double, _):
                        Issue.record("seed \(seed), format \(version), attribute \(i): read wrong")
                    case (.other, _): break
                    }
                }
            }
        }
        #expect(numbers >= cases.count * 3, "\(numbers) numbers read")
    }

    @Test("An offset past the values (checksum intact) throws from number(_:), attribute(_:) and record(names:)")
    func offsetPastTheValuesThrows() throws {
        let record = Record(id: RecordID(entity: "E", key: 7), attributes: [.int(5), .double(2.5), .int(-3)], relationships: [])
        var bytes = RecordCodec.encode(record)
        // Version, name length, "E", key 7 (zigzag 14), attribute count, offset width 2, then
        // the offsets: point the second past every byte and seal it with a matching checksum.
        #expect(Array(bytes[0..<6]) == [2, 1, UInt8(ascii: "E"), 14, 3, 2])
        bytes[8] = 0xFF
        bytes[9] = 0x7F
        let payloadCount = bytes.count - 4
        let checksum = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[..<payloadCount])) }
        withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange(payloadCount..., with: $0) }
        let fields = RecordFields(checksChecksums: true)
        try bytes.withUnsafeBytes { buffer in
            _ = try fields.loadHeader(buffer, names: Self.names)
            guard case .integer(5) = try fields.number(0) else {
                Issue.record("the first attribute, whose offset is intact, is not read")
                return
            }
            #expect(throws: StorageError.self) { try fields.number(1) }
            #expect(throws: StorageError.self) { try fields.attribute(1) }
            #expect(throws: StorageError.self) { try fields.record(names: Self.names) }
        }
    }
}
