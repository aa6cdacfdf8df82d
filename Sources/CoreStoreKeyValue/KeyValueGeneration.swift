import CoreStoreStorage

/// One generation of a ``KeyValueStorage``'s keys: the prefix its metadata, records and index
/// entries start with, so that a migration can write the next version of the data *beside* the
/// current one and make it current with one write of the root pointer.
///
/// ```
/// 0x00 "generation"                        → int g       the root pointer; absent means 0
/// generation 0:  0x01 … | 0x02 … | 0x03 …                the layout without a prefix
/// generation g:  0x10 g(8 bytes, big-endian) 0x01 … | 0x02 … | 0x03 …
/// ```
/// Generation 0 has no prefix: a store that was never migrated keeps the original layout and
/// pays nothing. A generation g ≥ 1 prefixes the same layout with `0x10` and g as 8 big-endian
/// bytes, so the keys of one generation form one contiguous range, after every key of
/// generation 0. Only the generation the pointer names is data: the keys of any other
/// generation are what a crash during or right after a migration left, and
/// ``KeyValueStorage/open(schema:)`` deletes them.
public struct KeyValueGeneration: Sendable, Hashable {
    /// The first byte of the root space, which holds only the ``pointerKey``.
    public static let rootSpace: UInt8 = 0x00
    /// The first byte of every key of a generation ≥ 1.
    public static let generationSpace: UInt8 = 0x10
    /// The key of the root pointer: the current generation, as a ``TupleEncoder`` `int`.
    public static let pointerKey: [UInt8] = {
        var key = [rootSpace]
        TupleEncoder.encodeString("generation", into: &key)
        return key
    }()

    /// The generation 0, the layout of a store that was never migrated.
    public static let initial = KeyValueGeneration(0)

    /// The generation's number.
    public let number: UInt64
    /// What every key of the generation starts with: empty for generation 0, otherwise
    /// ``generationSpace`` and ``number`` as 8 big-endian bytes.
    public let prefix: [UInt8]

    /// The generation `number`.
    public init(_ number: UInt64) {
        self.number = number
        prefix = number == 0 ? [] : Self.prefix(number)
    }

    /// The generation a migration writes: the number after this one. Throws
    /// ``StorageError/incompatibleStore(path:reason:)`` when there is none (the pointer is
    /// stored as an `int`, so the number stays at most `Int64.max`).
    func next(description: @autoclosure () -> String) throws -> KeyValueGeneration {
        guard number < UInt64(Int64.max) else {
            throw StorageError.incompatibleStore(path: description(), reason: "its generation counter is exhausted")
        }
        return KeyValueGeneration(number + 1)
    }

    /// The metadata names of the two counters every commit advances: the next record key and
    /// the commit sequence.
    static let nextKeyCounter = "nextKey", sequenceCounter = "sequence"

    /// The key of the metadata value `name` in this generation.
    public func metadataKey(_ name: String) -> [UInt8] {
        var key = prefix
        key.append(KeyValueLayout.metadataSpace)
        TupleEncoder.encodeString(name, into: &key)
        return key
    }

    /// The prefix of every key in `space` (``KeyValueLayout/recordSpace`` or
    /// ``KeyValueLayout/indexSpace``) of this generation.
    func spacePrefix(_ space: UInt8) -> [UInt8] {
        var key = prefix
        key.append(space)
        return key
    }

    // MARK: - The root pointer

    /// The value of the root pointer naming this generation.
    var pointerValue: [UInt8] {
        TupleEncoder.encode([.int(Int64(number))])
    }

    /// The generation the root pointer in `reader` names (generation 0 when there is none).
    /// Throws ``StorageError/incompatibleStore(path:reason:)`` when the pointer is damaged.
    static func current(_ reader: any KeyValueReader, description: @autoclosure () -> String) throws -> KeyValueGeneration {
        guard let bytes = try reader.get(pointerKey) else { return .initial }
        guard let values = try? TupleDecoder.decode(bytes), values.count == 1, case .int(let number) = values[0], number >= 0 else {
            throw StorageError.incompatibleStore(path: description(), reason: "its generation pointer is damaged")
        }
        return KeyValueGeneration(UInt64(number))
    }

    // MARK: - Key ranges

    /// The key ranges holding every key of this generation.
    var ranges: [KeyRange] {
        if number == 0 { return [Self.initialRange] }
        let upper = number == UInt64.max ? [Self.generationSpace + 1] : Self.prefix(number + 1)
        return [KeyRange(lower: prefix, upper: upper)]
    }

    /// The key ranges holding every key of every *other* generation: garbage while this one is
    /// current (or the destination of a migration from it, before anything was written there).
    var otherRanges: [KeyRange] {
        let laterSpace = KeyRange(lower: [Self.generationSpace], upper: [Self.generationSpace + 1])
        if number == 0 { return [laterSpace] }
        let own = ranges[0]
        return [Self.initialRange, KeyRange(lower: laterSpace.lower, upper: own.lower), KeyRange(lower: own.upper, upper: laterSpace.upper)]
    }

    /// The keys of generation 0: metadata, records and index entries without a prefix.
    private static let initialRange = KeyRange(lower: [KeyValueLayout.metadataSpace], upper: [KeyValueLayout.indexSpace + 1])

    /// ``generationSpace`` followed by `number` as 8 big-endian bytes.
    private static func prefix(_ number: UInt64) -> [UInt8] {
        var bytes = [generationSpace]
        bytes.reserveCapacity(9)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: number >> UInt64(shift))) }
        return bytes
    }
}

/// The keys `lower <= key < upper` of an engine.
struct KeyRange: Sendable, Hashable {
    /// The first key of the range, or a key before it.
    let lower: [UInt8]
    /// The key after the range; empty: no bound.
    let upper: [UInt8]
}
