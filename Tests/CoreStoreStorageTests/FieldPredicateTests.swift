import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreInMemory

/// `FieldPredicate` on decoded records (what the in-memory store's scans test) keeps exactly
/// the records `PredicateEvaluator` keeps and throws where it throws, for predicates whose
/// numbers take its fast path and for those that leave it (other kinds, NaN, nil, key paths
/// through relationships, unknown keys).
@Suite("FieldPredicate on decoded records agrees with the evaluator")
struct FieldPredicateTests {
    static let owners = [Fixtures.person(1, "Ann", age: 30), Fixtures.person(2, "Bo", age: nil)]

    static let dogs: [Record] = [
        Fixtures.dog(10, "Rex", weight: 2.0, owner: RecordID(entity: "Person", key: 1)),
        Fixtures.dog(11, "Ace", weight: -0.0),
        Fixtures.dog(12, "Zed", weight: .nan, owner: RecordID(entity: "Person", key: 2)),
        Fixtures.dog(13, "Fay"),
        Fixtures.dog(14, "Max", weight: 30.5, owner: RecordID(entity: "Person", key: 1)),
        Fixtures.dog(15, "Ida", weight: -.infinity),
    ]

    static let people: [Record] = owners + [Fixtures.person(3, "Cy", age: -4), Fixtures.person(4, "Di", age: .max)]

    /// Constants of every kind the fast path meets or leaves to the evaluator.
    static let constants: [Value] = [.int(2), .int(30), .int(-4), .int(.max), .double(2.0), .double(-0.0), .double(0.0), .double(.nan),
                                     .double(30.5), .double(-.infinity), .null, .string("Max"), .bool(true)]
    static let operators: [ComparisonOperator] = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]

    /// A random predicate over `keys`, at most `depth` levels of AND, OR and NOT deep.
    static func predicate(_ g: inout FixedSeedNumbers, keys: [[String]], depth: Int) -> RecordPredicate {
        switch depth == 0 ? 0 : g.next(5) {
        case 1: return .and((0..<(1 + g.next(3))).map { _ in predicate(&g, keys: keys, depth: depth - 1) })
        case 2: return .or((0..<(1 + g.next(3))).map { _ in predicate(&g, keys: keys, depth: depth - 1) })
        case 3: return .not(predicate(&g, keys: keys, depth: depth - 1))
        default:
            let key = keys[g.next(keys.count)]
            let quantifier: Quantifier = [.any, .any, .any, .all, .none][g.next(5)]
            return .comparison(Comparison(key, operators[g.next(operators.count)], .value(constants[g.next(constants.count)]), quantifier: quantifier))
        }
    }

    /// The evaluator's answer and the prepared predicate's, as text (a thrown error's included).
    static func answers(_ predicate: RecordPredicate, on record: Record) -> (expected: String, actual: String) {
        let all = owners + dogs + people
        let evaluator = PredicateEvaluator(schema: Fixtures.schema) { id in all.first { $0.id == id } }
        let prepared = FieldPredicate(predicate, entity: record.id.entity, schema: Fixtures.schema)
        func outcome(_ body: () throws -> Bool) -> String {
            do { return "\(try body())" } catch { return "error: \(error)" }
        }
        let expected = outcome { try evaluator.evaluate(predicate, on: record) }
        let actual = outcome { try withUnsafePointer(to: record) { try prepared.evaluate(DecodedRecordFields(pointer: $0), evaluator) } }
        return (expected, actual)
    }

    @Test("Random predicates over dogs (doubles, nil, NaN, a to-one key path, an unknown key)", arguments: 0..<40 as Range<UInt64>)
    func dogsAgree(_ seed: UInt64) {
        var g = FixedSeedNumbers(seed: seed)
        let keys = [["weight"], ["weight"], ["name"], ["owner", "age"], ["missing"]]
        for _ in 0..<25 {
            let p = Self.predicate(&g, keys: keys, depth: 3)
            for dog in Self.dogs {
                let (expected, actual) = Self.answers(p, on: dog)
                #expect(actual == expected, "\(p) on \(dog.id)")
            }
        }
    }

    /// Weights at and beside every bound the ranges below use, the infinities and NaN.
    static let rangeWeights: [Double] = [
        -.infinity, -.greatestFiniteMagnitude, -2.0, -0.0, 0.0, .leastNonzeroMagnitude, 2.0.nextDown, 2.0, 2.0.nextUp,
        30.5.nextDown, 30.5, 30.5.nextUp, .greatestFiniteMagnitude, .infinity, .nan,
    ]

    @Test("Two-sided ranges of one double attribute (the interval test) on the values at and beside their bounds", arguments: [
        ComparisonOperator.less, .lessOrEqual, .greater, .greaterOrEqual, .equal,
    ])
    func doubleRangesAgree(_ first: ComparisonOperator) {
        let bounds: [Double] = [-.infinity, -.greatestFiniteMagnitude, -0.0, 0.0, .leastNonzeroMagnitude, 2.0, 30.5,
                                .greatestFiniteMagnitude, .infinity]
        let dogs = Self.rangeWeights.enumerated().map { Fixtures.dog(100 + Int64($0.offset), "W", weight: $0.element) }
        for second in [ComparisonOperator.less, .lessOrEqual, .greater, .greaterOrEqual, .notEqual] {
            for low in bounds {
                for high in bounds {
                    let p = RecordPredicate.and([
                        .comparison(Comparison(["weight"], first, .value(.double(low)))),
                        .comparison(Comparison(["weight"], second, .value(.double(high)))),
                    ])
                    for dog in dogs {
                        let (expected, actual) = Self.answers(p, on: dog)
                        #expect(actual == expected, "\(p) on weight \(dog.attributes[1])")
                    }
                }
            }
        }
    }

    @Test("Random predicates over people (integers up to Int64.max, nil)", arguments: 0..<40 as Range<UInt64>)
    func peopleAgree(_ seed: UInt64) {
        var g = FixedSeedNumbers(seed: seed)
        let keys = [["age"], ["age"], ["name"], ["email"]]
        for _ in 0..<25 {
            let p = Self.predicate(&g, keys: keys, depth: 3)
            for person in Self.people {
                let (expected, actual) = Self.answers(p, on: person)
                #expect(actual == expected, "\(p) on \(person.id)")
            }
        }
    }

    @Test("A range of integers and one of doubles: the fast path's answers, record by record")
    func rangesTakeTheFastPath() {
        let ages = RecordPredicate.and([.comparison(Comparison(["age"], .greaterOrEqual, .value(.int(-4)))), .comparison(Comparison(["age"], .less, .value(.int(31))))])
        #expect(Self.people.map { Self.answers(ages, on: $0).actual } == ["true", "false", "true", "false"])
        let weights = RecordPredicate.and([.comparison(Comparison(["weight"], .greater, .value(.double(-1)))), .comparison(Comparison(["weight"], .lessOrEqual, .value(.double(2))))])
        #expect(Self.dogs.map { Self.answers(weights, on: $0).actual } == ["true", "true", "false", "false", "false", "false"])
        // A range whose bounds are of two kinds (an integer bound on doubles): the one-read
        // range test cannot decide it, and the general path answers as the evaluator does.
        let mixed = RecordPredicate.and([.comparison(Comparison(["weight"], .greaterOrEqual, .value(.int(0)))), .comparison(Comparison(["weight"], .less, .value(.double(31))))])
        for dog in Self.dogs {
            let (expected, actual) = Self.answers(mixed, on: dog)
            #expect(actual == expected, "\(dog.id)")
        }
        #expect(Self.dogs.map { Self.answers(mixed, on: $0).actual } == ["true", "true", "false", "false", "true", "false"])
    }
}
