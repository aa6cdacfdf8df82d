import Foundation
import Testing
@testable import CoreStoreStorage

/// The hashed `IN` membership against the linear definition it replaces.
@Suite("Value membership")
struct ValueMembershipTests {
    /// Values on every edge the evaluator's equality distinguishes or merges.
    static let tricky: [Value] = {
        let twoToThe53 = Int64(1) << 53
        return [
            .null,
            .bool(true), .bool(false),
            .int(0), .int(1), .int(2), .int(-1), .int(Int64.max), .int(Int64.min), .int(Int64.max - 1),
            .int(twoToThe53), .int(twoToThe53 + 1), .int(twoToThe53 - 1),
            .double(2.0), .double(0.0), .double(-0.0), .double(1.0), .double(-1.0), .double(2.5), .double(-2.5),
            .double(.nan), .double(-.nan), .double(.infinity), .double(-.infinity),
            .double(9_007_199_254_740_992.0), .double(9_007_199_254_740_994.0),
            .double(9.223372036854775808e18), .double(-9.223372036854775808e18), .double(Double(Int64.max)),
            .double(.greatestFiniteMagnitude), .double(.leastNonzeroMagnitude), .double(-.leastNonzeroMagnitude), .double(0.1),
            .decimal(2), .decimal(0), .decimal(Decimal(string: "2.5") ?? 0), .decimal(Decimal(string: "0.1") ?? 0),
            .decimal(Decimal(UInt64.max)), .decimal(Decimal(Int64.max)), .decimal(Decimal(string: "-0") ?? 0),
            .string("\u{e9}"), .string("e\u{301}"), .string(""), .string("a"), .string("a\0"), .string("A"), .string("2"), .string("😀"),
            .bytes(Data()), .bytes(Data([0])), .bytes(Data([1, 2])), .bytes(Data("a".utf8)),
            .date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: -0.0)),
            .date(Date(timeIntervalSinceReferenceDate: 2)), .date(Date(timeIntervalSinceReferenceDate: .nan)),
            .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2))),
            .uuid(UUID(uuid: (2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))),
        ]
    }()

    /// The definition: some member equals the value.
    static func linear(_ value: Value, _ members: [Value]) -> Bool {
        members.contains { PredicateEvaluator.equal(value, $0) }
    }

    @Test("Every tricky value against the whole tricky list, and against each single member")
    func agreesWithTheLinearDefinition() {
        let all = ValueMembership(Self.tricky)
        for value in Self.tricky {
            #expect(all.contains(value) == Self.linear(value, Self.tricky), "\(value) in every tricky value")
            for member in Self.tricky {
                #expect(ValueMembership([member]).contains(value) == PredicateEvaluator.equal(value, member), "\(value) in [\(member)]")
            }
        }
    }

    @Test("Random sublists of the tricky values give the linear answer", arguments: Array(1...20) as [UInt64])
    func randomSublists(seed: UInt64) {
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let members = Self.tricky.filter { _ in next() % 3 == 0 }
        let membership = ValueMembership(members)
        for value in Self.tricky {
            #expect(membership.contains(value) == Self.linear(value, members), "\(value) in \(members)")
        }
    }

    @Test("Known answers on the edges")
    func edges() {
        #expect(ValueMembership([.double(2.0)]).contains(.int(2)))
        #expect(ValueMembership([.int(1)]).contains(.bool(true)))
        #expect(ValueMembership([.bool(false)]).contains(.double(-0.0)))
        #expect(ValueMembership([.double(-0.0)]).contains(.double(0.0)))
        #expect(!ValueMembership([.double(.nan)]).contains(.double(.nan)))
        #expect(!ValueMembership([.double(9_007_199_254_740_992.0)]).contains(.int((1 << 53) + 1)), "no rounding of the integer")
        #expect(!ValueMembership([.double(9.223372036854775808e18)]).contains(.int(Int64.max)))
        #expect(ValueMembership([.double(-9.223372036854775808e18)]).contains(.int(Int64.min)))
        #expect(!ValueMembership([.string("\u{e9}")]).contains(.string("e\u{301}")), "UTF-8 bytes, not canonical equivalence")
        #expect(ValueMembership([.string("")]).contains(.string("")))
        #expect(!ValueMembership([.string("")]).contains(.null))
        #expect(ValueMembership([.null]).contains(.null))
        #expect(!ValueMembership([.int(2)]).contains(.string("2")))
        #expect(ValueMembership([.decimal(2)]).contains(.int(2)))
        #expect(ValueMembership([.int(2)]).contains(.decimal(2)))
        #expect(ValueMembership([.decimal(Decimal(string: "2.5") ?? 0)]).contains(.double(2.5)))
        #expect(!ValueMembership([.decimal(Decimal(string: "2.5") ?? 0)]).contains(.string("2.5")))
    }

    @Test("The evaluator's IN over a long list answers like the linear definition")
    func evaluatorUsesTheMembership() throws {
        let evaluator = PredicateEvaluator(schema: Fixtures.schema)
        // Longer than the hashing threshold, tricky values first.
        let long = Self.tricky + (1000..<1100).map { Value.int(Int64($0)) }
        let reversed = Array(long.reversed().dropFirst(3))
        for value in Self.tricky + [.int(1050), .int(999)] {
            // Two lists alternate on one evaluator: each must be answered from its own membership.
            for list in [long, reversed] {
                let c = Comparison(["age"], .in, .list(list))
                #expect(try evaluator.evaluateLeaf(value, c) == Self.linear(value, list), "\(value)")
            }
            let caseless = Comparison(["age"], .in, .list(long), options: .caseInsensitive)
            let folded = long.contains { PredicateEvaluator.equal(value, $0, .caseInsensitive) }
            #expect(try evaluator.evaluateLeaf(value, caseless) == folded, "[c] stays linear")
        }
    }

    @Test("Many lists of one length through one evaluator never share a membership")
    func cacheIsKeyedByList() throws {
        let evaluator = PredicateEvaluator(schema: Fixtures.schema)
        for round in 0..<50 {
            let list = (0..<20).map { Value.int(Int64(round * 100 + $0)) }
            let c = Comparison(["age"], .in, .list(list))
            #expect(try evaluator.evaluateLeaf(.int(Int64(round * 100 + 7)), c))
            #expect(try !evaluator.evaluateLeaf(.int(Int64(round * 100 - 93)), c))
        }
    }
}
