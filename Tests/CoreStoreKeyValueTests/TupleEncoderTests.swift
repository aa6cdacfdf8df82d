import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

@Suite("TupleEncoder: byte order is storage order")
struct TupleEncoderTests {
    @Test("Same-case values: memcmp order equals Value.storageOrder", arguments: 0..<8)
    func sameKindOrder(kind: Int) {
        var g = SeededGenerator(seed: 0xC0FFEE &+ UInt64(kind))
        for _ in 0..<3_000 {
            let a = RandomValues.value(kind: kind, &g), b = RandomValues.value(kind: kind, &g)
            let bytes = sign(compareKeys(TupleEncoder.encode([a]), TupleEncoder.encode([b])))
            #expect(bytes == sign(Value.storageOrder(a, b)), "\(a) vs \(b)")
        }
    }

    @Test("Integer attributes: UInt64 values held as decimals sort after every Int64, in order")
    func integerAttributeWithUnsignedValues() {
        var g = SeededGenerator(seed: 42)
        func value() -> Value {
            Bool.random(using: &g) ? .int(RandomValues.int(&g)) : .decimal(Decimal(UInt64.random(in: (UInt64(Int64.max) + 1)...UInt64.max, using: &g)))
        }
        for _ in 0..<3_000 {
            let a = value(), b = value()
            #expect(sign(compareKeys(TupleEncoder.encode([a]), TupleEncoder.encode([b]))) == sign(Value.storageOrder(a, b)), "\(a) vs \(b)")
        }
    }

    @Test("A counter encoded alone is the one-element tuple of its int", arguments: [Int64.min, -1, 0, 1, 255, 1 << 40, Int64.max])
    func counterEncoding(value: Int64) throws {
        let bytes = TupleEncoder.encodeInt(value)
        #expect(bytes == TupleEncoder.encode([.int(value)]))
        #expect(try TupleDecoder.decode(bytes) == [.int(value)])
    }

    @Test("Kinds order by rank, nil first")
    func kindsOrderByRank() {
        var g = SeededGenerator(seed: 7)
        for _ in 0..<3_000 {
            let a: Value = Int.random(in: 0..<9, using: &g) == 0 ? .null : RandomValues.value(kind: Int.random(in: 0..<8, using: &g), &g)
            let b: Value = Int.random(in: 0..<9, using: &g) == 0 ? .null : RandomValues.value(kind: Int.random(in: 0..<8, using: &g), &g)
            let rank = { (v: Value) -> Int in
                switch v {
                case .null: return 0
                case .bool, .int, .double, .decimal: return 1
                case .string: return 2
                case .bytes: return 3
                case .date: return 4
                case .uuid: return 5
                }
            }
            guard rank(a) != rank(b) else { continue }
            #expect(sign(compareKeys(TupleEncoder.encode([a]), TupleEncoder.encode([b]))) == (rank(a) < rank(b) ? -1 : 1))
        }
    }

    @Test("Tuples order element by element")
    func tuplesOrderElementwise() {
        var g = SeededGenerator(seed: 99)
        for _ in 0..<2_000 {
            let a = [Value.string(RandomValues.string(&g)), .int(Int64.random(in: -2...2, using: &g))]
            let b = [Value.string(RandomValues.string(&g)), .int(Int64.random(in: -2...2, using: &g))]
            let expected = Value.storageOrder(a[0], b[0]) != 0 ? Value.storageOrder(a[0], b[0]) : Value.storageOrder(a[1], b[1])
            #expect(sign(compareKeys(TupleEncoder.encode(a), TupleEncoder.encode(b))) == sign(expected), "\(a) vs \(b)")
        }
    }

    @Test("-0.0 encodes as 0.0 and every NaN alike, below -infinity")
    func doubleCanonicalForms() {
        #expect(TupleEncoder.encode([.double(-0.0)]) == TupleEncoder.encode([.double(0.0)]))
        #expect(TupleEncoder.encode([.double(.nan)]) == TupleEncoder.encode([.double(-Double.nan)]))
        #expect(compareKeys(TupleEncoder.encode([.double(.nan)]), TupleEncoder.encode([.double(-.infinity)])) < 0)
        #expect(compareKeys(TupleEncoder.encode([.bool(false)]), TupleEncoder.encode([.bool(true)])) < 0)
    }

    @Test("Decoding gives the values back (canonical doubles)", arguments: 0..<8)
    func roundTrip(kind: Int) throws {
        var g = SeededGenerator(seed: 1234 &+ UInt64(kind))
        for _ in 0..<500 {
            let value = RandomValues.value(kind: kind, &g)
            let decoded = try TupleDecoder.decode(TupleEncoder.encode([value, .null, .int(5)]))
            #expect(decoded.count == 3)
            #expect(Value.storageOrder(decoded[0], value) == 0, "\(value) → \(decoded[0])")
            #expect(decoded[1] == .null && decoded[2] == .int(5))
        }
    }

    @Test("Damaged keys throw instead of trapping")
    func damagedKeysThrow() {
        #expect(throws: StorageError.self) { try TupleDecoder.decode([0x12, 1, 2]) }
        #expect(throws: StorageError.self) { try TupleDecoder.decode([0x20, 0x61]) }
        #expect(throws: StorageError.self) { try TupleDecoder.decode([0xEE]) }
    }

    @Test("prefixEnd is the first key after every key with the prefix")
    func prefixEnd() {
        #expect(TupleEncoder.prefixEnd([1, 2]) == [1, 3])
        #expect(TupleEncoder.prefixEnd([1, 0xFF]) == [2])
        #expect(TupleEncoder.prefixEnd([0xFF]) == [])
    }
}
