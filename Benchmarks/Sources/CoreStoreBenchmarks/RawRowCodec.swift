import Foundation

/// The compact binary layout of a ``BenchRow`` in the raw-engine subjects, the same for LMDB and
/// LevelDB so that their numbers compare.
///
/// One keyspace, split by a one-byte prefix:
/// - `0x00` + id → the row's value: age, the bit pattern of score, the bit pattern of `created`
///   (seconds since 1970), each 8 bytes little-endian, then the name's UTF-8 length (4 bytes
///   little-endian) and bytes. The key is the `id` index.
/// - `0x01` + age + id → an empty value: the `age` index, in age then id order.
///
/// Integers in keys are 8 bytes big-endian with the sign bit flipped, so that the engines'
/// bytewise key order is numeric order.
enum RawRowCodec {
    /// The first byte of every row key.
    static let rowPrefix: UInt8 = 0x00
    /// The first byte of every `age` index key.
    static let agePrefix: UInt8 = 0x01
    /// The size of a row key: prefix and id.
    static let rowKeySize = 9
    /// The size of an `age` index key: prefix, age and id.
    static let ageKeySize = 17
    /// The size of a row value without the name's bytes.
    static let fixedValueSize = 28

    // MARK: Keys

    /// Replaces `key` with the row key of `id`.
    static func encodeRowKey(id: Int64, into key: inout [UInt8]) {
        key.removeAll(keepingCapacity: true)
        key.append(rowPrefix)
        appendOrdered(id, to: &key)
    }

    /// Replaces `key` with the `age` index key of the row (`age`, `id`).
    static func encodeAgeKey(age: Int, id: Int64, into key: inout [UInt8]) {
        encodeAgePrefix(age: age, into: &key)
        appendOrdered(id, to: &key)
    }

    /// Replaces `key` with the first 9 bytes of every `age` index key of `age`.
    static func encodeAgePrefix(age: Int, into key: inout [UInt8]) {
        key.removeAll(keepingCapacity: true)
        key.append(agePrefix)
        appendOrdered(Int64(age), to: &key)
    }

    /// The id of a row key, or `nil` when `key` is not a row key (the scan left the rows).
    static func decodeRowKey(_ key: UnsafeRawBufferPointer) throws -> Int64? {
        guard key.first == rowPrefix else { return nil }
        guard key.count == rowKeySize else { throw corrupt("a row key of \(key.count) bytes") }
        return readOrdered(key, at: 1)
    }

    /// The age and id of an `age` index key, or `nil` when `key` is not one (the scan left the
    /// index).
    static func decodeAgeKey(_ key: UnsafeRawBufferPointer) throws -> (age: Int, id: Int64)? {
        guard key.first == agePrefix else { return nil }
        guard key.count == ageKeySize else { throw corrupt("an age index key of \(key.count) bytes") }
        return (Int(readOrdered(key, at: 1)), readOrdered(key, at: 9))
    }

    // MARK: Values

    /// Replaces `value` with the stored form of every field of `row` but its id (in the key).
    static func encodeValue(of row: BenchRow, into value: inout [UInt8]) {
        value.removeAll(keepingCapacity: true)
        appendLittleEndian(UInt64(bitPattern: Int64(row.age)), to: &value)
        appendLittleEndian(row.score.bitPattern, to: &value)
        appendLittleEndian(row.created.timeIntervalSince1970.bitPattern, to: &value)
        let name = row.name.utf8
        withUnsafeBytes(of: UInt32(name.count).littleEndian) { value.append(contentsOf: $0) }
        value.append(contentsOf: name)
    }

    /// The row with identifier `id` whose stored value is `value`: every field decoded.
    static func decodeRow(id: Int64, value: UnsafeRawBufferPointer) throws -> BenchRow {
        try checkFixedFields(value)
        let nameSize = Int(UInt32(littleEndian: value.loadUnaligned(fromByteOffset: 24, as: UInt32.self)))
        guard value.count == fixedValueSize + nameSize else {
            throw corrupt("a row value of \(value.count) bytes with a name of \(nameSize)")
        }
        let nameBytes = UnsafeRawBufferPointer(rebasing: value[fixedValueSize...])
        return BenchRow(
            id: id,
            name: String(decoding: nameBytes, as: UTF8.self),
            age: storedAge(value),
            score: storedScore(value),
            created: Date(timeIntervalSince1970: Double(bitPattern: readLittleEndian(value, at: 16)))
        )
    }

    /// The age stored in the row value `value`, without decoding the rest.
    static func age(of value: UnsafeRawBufferPointer) throws -> Int {
        try checkFixedFields(value)
        return storedAge(value)
    }

    /// The score stored in the row value `value`, without decoding the rest.
    static func score(of value: UnsafeRawBufferPointer) throws -> Double {
        try checkFixedFields(value)
        return storedScore(value)
    }

    // MARK: Private

    private static func storedAge(_ value: UnsafeRawBufferPointer) -> Int {
        Int(Int64(bitPattern: readLittleEndian(value, at: 0)))
    }

    private static func storedScore(_ value: UnsafeRawBufferPointer) -> Double {
        Double(bitPattern: readLittleEndian(value, at: 8))
    }

    private static func appendOrdered(_ number: Int64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: (UInt64(bitPattern: number) ^ (1 << 63)).bigEndian) { bytes.append(contentsOf: $0) }
    }

    private static func readOrdered(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int64 {
        let stored = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        return Int64(bitPattern: stored ^ (1 << 63))
    }

    private static func appendLittleEndian(_ number: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func readLittleEndian(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    private static func checkFixedFields(_ value: UnsafeRawBufferPointer) throws {
        guard value.count >= fixedValueSize else { throw corrupt("a row value of \(value.count) bytes") }
    }

    private static func corrupt(_ what: String) -> RawEngineError {
        RawEngineError(message: "corrupt raw store: \(what)")
    }
}

/// The key and value buffers of one workload call, reused for every row it writes: encoding
/// allocates only while they grow.
struct RawRowBuffers {
    /// The row key of the last row encoded.
    var rowKey: [UInt8] = []
    /// The `age` index key of the last row encoded (or any other index key put here).
    var ageKey: [UInt8] = []
    /// The value of the last row encoded.
    var value: [UInt8] = []
    /// Always empty: the value of an index entry.
    let emptyValue: [UInt8] = []

    init() {
        rowKey.reserveCapacity(RawRowCodec.rowKeySize)
        ageKey.reserveCapacity(RawRowCodec.ageKeySize)
        value.reserveCapacity(64)
    }

    /// Encodes `row`'s key, `age` index key and value.
    mutating func encode(_ row: BenchRow) {
        RawRowCodec.encodeRowKey(id: row.id, into: &rowKey)
        RawRowCodec.encodeAgeKey(age: row.age, id: row.id, into: &ageKey)
        RawRowCodec.encodeValue(of: row, into: &value)
    }
}
