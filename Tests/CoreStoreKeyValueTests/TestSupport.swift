import Foundation
import CoreStoreStorage

/// A seeded generator, so every random test replays exactly.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Unsigned lexicographic comparison, shorter first: the engine's key order.
func compareKeys(_ a: [UInt8], _ b: [UInt8]) -> Int {
    if a == b { return 0 }
    return a.lexicographicallyPrecedes(b) ? -1 : 1
}

func sign(_ x: Int) -> Int { x == 0 ? 0 : (x < 0 ? -1 : 1) }

/// Random values of each case, with the edge cases mixed in.
enum RandomValues {
    static let strings = ["", "a", "a\0", "a\0b", "\0", "b", "ab", "abc", "é", "e\u{301}", "Z", "z", "\u{7F}", "\u{80}", "日本", "😀", "a\u{1}", "\0\0"]

    static func int(_ g: inout SeededGenerator) -> Int64 {
        switch Int.random(in: 0..<6, using: &g) {
        case 0: return [Int64.min, Int64.max, 0, -1, 1, Int64.min + 1, Int64.max - 1].randomElement(using: &g) ?? 0
        case 1: return Int64.random(in: -300...300, using: &g)
        default: return Int64.random(in: Int64.min...Int64.max, using: &g)
        }
    }

    static func double(_ g: inout SeededGenerator) -> Double {
        switch Int.random(in: 0..<6, using: &g) {
        case 0: return [0.0, -0.0, .infinity, -.infinity, .nan, -.nan, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                        .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 1, -1].randomElement(using: &g) ?? 0
        case 1: return Double(Int.random(in: -20...20, using: &g)) / 4
        default: return Double(bitPattern: g.next())
        }
    }

    static func decimal(_ g: inout SeededGenerator) -> Decimal {
        switch Int.random(in: 0..<4, using: &g) {
        case 0: return [Decimal(0), Decimal(1), Decimal(-1), Decimal(UInt64.max), Decimal(string: "0.1") ?? 0, Decimal(string: "-0.10") ?? 0].randomElement(using: &g) ?? 0
        default:
            let significand = Decimal(UInt64.random(in: 0...UInt64.max >> UInt64.random(in: 0...60, using: &g), using: &g))
            return Decimal(sign: Bool.random(using: &g) ? .minus : .plus, exponent: Int.random(in: -25...25, using: &g), significand: significand)
        }
    }

    static func string(_ g: inout SeededGenerator) -> String {
        (0..<Int.random(in: 0...3, using: &g)).map { _ in strings.randomElement(using: &g) ?? "" }.joined()
    }

    static func bytes(_ g: inout SeededGenerator) -> Data {
        Data((0..<Int.random(in: 0...4, using: &g)).map { _ in [0, 1, 0x7F, 0xFF, 0xFE, UInt8.random(in: 0...255, using: &g)].randomElement(using: &g) ?? 0 })
    }

    static func date(_ g: inout SeededGenerator) -> Date {
        switch Int.random(in: 0..<3, using: &g) {
        case 0: return Date(timeIntervalSinceReferenceDate: [0, -0.0, 1, -1, 1e9, -1e9, 0.5].randomElement(using: &g) ?? 0)
        default: return Date(timeIntervalSinceReferenceDate: Double.random(in: -1e10...1e10, using: &g))
        }
    }

    static func uuid(_ g: inout SeededGenerator) -> UUID {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &g) }
        if Bool.random(using: &g) { bytes[Int.random(in: 0..<16, using: &g)] = 0 }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// A random value of one case, `kind` 0…7 (bool, int, double, decimal, string, bytes, date, uuid).
    static func value(kind: Int, _ g: inout SeededGenerator) -> Value {
        switch kind {
        case 0: return .bool(Bool.random(using: &g))
        case 1: return .int(int(&g))
        case 2: return .double(double(&g))
        case 3: return .decimal(decimal(&g))
        case 4: return .string(string(&g))
        case 5: return .bytes(bytes(&g))
        case 6: return .date(date(&g))
        default: return .uuid(uuid(&g))
        }
    }
}
