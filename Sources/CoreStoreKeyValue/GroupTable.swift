import Foundation
import CoreStoreStorage

/// The groups of a streamed group-by: each distinct `groupBy` tuple gets an index, in the order
/// the tuples first appear. Two tuples are one group exactly when every value is equal in
/// ``Value/storageOrder(_:_:)``, the equality that decides which records share a group.
///
/// An open-addressing hash table (linear probing, at most half full) over a hash that agrees
/// with that equality: numbers hash by value across their cases (`1`, `1.0` and `true` are one
/// group, as are `0.0` and `-0.0`; every NaN is one), strings by their UTF-8 bytes. A decimal
/// that is not a whole number hashes by its kind alone: correct, only slower when many groups
/// are such decimals (one `groupBy` key is one attribute of one type, so a double never meets a
/// decimal). The hash is seeded per table, so crafted values cannot make every tuple collide.
///
/// It replaces a `Dictionary` keyed by the tuple, whose SipHash cost several times the rest of
/// the lookup for each record. In front of it, one-key tuples equal to a small whole number (the
/// usual group key: an age, a status code) are found by direct index in a cache of the table's
/// answers (``direct``), without hashing.
struct GroupTable {
    /// Each group's tuple: the values of its first record.
    private(set) var keys: [[Value]] = []
    /// Each group's hash.
    private var hashes: [UInt64] = []
    /// Group index + 1 per slot, 0 for an empty slot; the count is a power of two.
    private var slots: [Int32] = Array(repeating: 0, count: 64)
    /// Mixed into every hash.
    private let seed = UInt64.random(in: .min ... .max)
    /// Group index + 1 of the one-key tuple equal to each whole number below ``directLimit``, 0
    /// while unknown: a cache of the table's answers, filled when the table finds or adds one.
    private var direct: [Int32] = []
    /// The whole numbers ``direct`` holds: 0 up to this, excluded.
    static let directLimit = 4_096

    /// The number of groups.
    var count: Int { keys.count }

    /// The index of the group of `values`, `nil` when there is none yet.
    mutating func index(of values: [Value]) -> Int? {
        let number = Self.directNumber(values)
        if let number, number < direct.count, direct[number] != 0 { return Int(direct[number]) - 1 }
        let group = lookup(values, hash: hash(values)).group
        if let number, let group { remember(group, for: number) }
        return group
    }

    /// The index of the group of `values`, added as a new group when there is none yet.
    mutating func findOrAdd(_ values: [Value]) -> (index: Int, isNew: Bool) {
        let number = Self.directNumber(values)
        if let number, number < direct.count, direct[number] != 0 { return (Int(direct[number]) - 1, false) }
        let h = hash(values)
        let (group, slot) = lookup(values, hash: h)
        if let group {
            if let number { remember(group, for: number) }
            return (group, false)
        }
        let index = keys.count
        keys.append(values)
        hashes.append(h)
        slots[slot] = Int32(index + 1)
        if keys.count * 2 > slots.count { grow() }
        if let number { remember(index, for: number) }
        return (index, true)
    }

    /// The whole number `values` is, when it is one value equal in storage order to a whole
    /// number below ``directLimit`` (of any numeric case); `nil` otherwise.
    @inline(__always)
    private static func directNumber(_ values: [Value]) -> Int? {
        guard values.count == 1 else { return nil }
        switch values[0] {
        case .int(let i): return i >= 0 && i < directLimit ? Int(i) : nil
        case .bool(let b): return b ? 1 : 0
        case .double(let d): return d >= 0 && d < Double(directLimit) && d.rounded(.towardZero) == d ? Int(d) : nil
        default: return nil
        }
    }

    /// Caches that the one-key tuple equal to `number` is group `index`.
    private mutating func remember(_ index: Int, for number: Int) {
        if direct.isEmpty { direct = Array(repeating: 0, count: Self.directLimit) }
        direct[number] = Int32(index + 1)
    }

    /// The group of `values` and, when there is none, the empty slot where it would go.
    private func lookup(_ values: [Value], hash h: UInt64) -> (group: Int?, slot: Int) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: h) & mask
        while true {
            let entry = Int(slots[slot])
            if entry == 0 { return (nil, slot) }
            if hashes[entry - 1] == h, Self.equal(keys[entry - 1], values) { return (entry - 1, slot) }
            slot = (slot + 1) & mask
        }
    }

    /// Doubles the slots and places every group again.
    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (index, h) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: h) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(index + 1)
        }
    }

    /// Whether two tuples are one group.
    private static func equal(_ a: [Value], _ b: [Value]) -> Bool {
        guard a.count == b.count else { return false }
        for i in a.indices where Value.storageOrder(a[i], b[i]) != 0 { return false }
        return true
    }

    /// The hash of a tuple, equal for tuples that are one group.
    func hash(_ values: [Value]) -> UInt64 {
        var h = seed
        for value in values { h = Self.mix(h ^ Self.hash(value)) }
        return h
    }

    /// splitmix64's finalizer: every input bit reaches every output bit.
    @inline(__always)
    private static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// One value's hash, before mixing; a kind tag keeps kinds that never compare equal apart.
    private static func hash(_ value: Value) -> UInt64 {
        switch value {
        case .null: return 0
        case .bool(let b): return whole(b ? 1 : 0)
        case .int(let i): return whole(i)
        case .double(let d): return hash(d)
        case .decimal(let d):
            // A whole decimal has a whole double (no whole number lies between it and the
            // double nearest to it), so it hashes like the integer it equals.
            if let w = Int64(exactly: NSDecimalNumber(decimal: d).doubleValue) { return whole(w) }
            return 2
        case .string(let s): return bytes(s.utf8, kind: 3)
        case .bytes(let data): return bytes(data, kind: 4)
        case .date(let date): return mix(5 &+ hash(date.timeIntervalSinceReferenceDate))
        case .uuid(let uuid):
            return withUnsafeBytes(of: uuid.uuid) { bytes($0, kind: 6) }
        }
    }

    /// A whole number, whatever case holds it.
    @inline(__always)
    private static func whole(_ n: Int64) -> UInt64 {
        mix(UInt64(bitPattern: n) ^ 0x1000_0000_0000_0001)
    }

    /// A double: as a whole number when it is one, every NaN alike.
    private static func hash(_ d: Double) -> UInt64 {
        if let w = Int64(exactly: d) { return whole(w) }
        if d.isNaN { return 7 }
        return mix(d.bitPattern ^ 0x8000_0000_0000_0008)
    }

    /// FNV-1a over `bytes`, started from `kind`.
    private static func bytes<C: Sequence>(_ bytes: C, kind: UInt64) -> UInt64 where C.Element == UInt8 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ kind
        for byte in bytes { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return mix(h)
    }
}
