/// A 64-bit FNV-1a digest of an entity's objects as `corestore dump` writes them, in key order:
/// equal on two stores exactly when they hold the same objects with the same values and
/// relationships (up to a hash collision). `corestore copy` compares it between the source and
/// the written copy.
struct ContentDigest: Hashable, CustomStringConvertible {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    /// Adds one object's dump line.
    mutating func add(_ line: String) {
        for byte in line.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        value ^= 0x0a
        value = value &* 0x0000_0100_0000_01b3
    }

    var description: String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// What an entity holds, for comparing two stores: the number of objects and their digest.
struct EntityContent: Hashable {
    var objects = 0
    var digest = ContentDigest()
}
