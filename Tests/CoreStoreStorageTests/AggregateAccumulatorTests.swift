import Foundation
import Testing
import CoreStoreStorage

@Suite("Aggregate accumulator")
struct AggregateAccumulatorTests {
    func result(_ function: AggregateFunction, _ type: AttributeType, _ values: [Value]) throws -> Value {
        var accumulator = AggregateAccumulator(function, of: type)
        for value in values { accumulator.add(value) }
        return try accumulator.result(for: "x")
    }

    @Test func noValuesCountZeroAndAggregateToNil() throws {
        #expect(try result(.count, .integer, []) == .int(0))
        for function in [AggregateFunction.sum, .average, .minimum, .maximum] {
            for type in [AttributeType.integer, .double, .decimal, .bool] {
                #expect(try result(function, type, []) == .null)
                #expect(try result(function, type, [.null, .null]) == .null)
            }
        }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func aNonFiniteDoubleInADecimalSumGivesNaNInsteadOfCrashing(_ value: Double) throws {
        var decimal = AggregateAccumulator(.sum, of: .decimal)
        decimal.add(.decimal(1))
        decimal.add(.double(value))
        guard case .decimal(let total) = try decimal.result(for: "d") else { Issue.record("not a decimal"); return }
        #expect(total.isNaN)
        // In an integer sum such a value is a damaged one: the sum throws, the average is NaN.
        var sum = AggregateAccumulator(.sum, of: .integer), average = AggregateAccumulator(.average, of: .integer)
        for v: Value in [.int(2), .double(value)] { sum.add(v); average.add(v) }
        #expect(throws: StorageError.self) { try sum.result(for: "i") }
        #expect(try average.result(for: "i").doubleValue.isNaN)
    }

    @Test("add(integer:) and add(double:) give what add(_:) gives with the same values",
          arguments: [AggregateFunction.count, .sum, .average, .minimum, .maximum], [AttributeType.integer, .double, .decimal, .bool])
    func typedAddsMatchValueAdds(_ function: AggregateFunction, _ type: AttributeType) throws {
        let runs: [[Value]] = [
            [.int(3), .int(-7), .int(40)],
            [.int(Int64.max), .int(1), .int(-1)],
            [.int(Int64.min), .int(-1)],
            [.int(Int64.max - 1), .int(1)],
            [.double(0.1), .double(0.2), .double(-0.3), .double(.infinity)],
            [.double(.nan), .double(1)],
            [.int(5), .double(2.5), .int(-2), .double(-0.0)],
        ]
        for values in runs {
            var typed = AggregateAccumulator(function, of: type), untyped = typed
            for value in values {
                untyped.add(value)
                switch value {
                case .int(let i): typed.add(integer: i)
                case .double(let d): typed.add(double: d)
                default: typed.add(value)
                }
            }
            #expect(typed.count == untyped.count, "\(values)")
            let t = Result { try typed.result(for: "x") }, u = Result { try untyped.result(for: "x") }
            #expect(String(describing: t) == String(describing: u), "\(function) of \(type): \(values)")
        }
    }

    @Test func nilIsSkippedByEveryFunction() throws {
        let values: [Value] = [.int(4), .null, .int(2)]
        #expect(try result(.count, .integer, values) == .int(2))
        #expect(try result(.sum, .integer, values) == .int(6))
        #expect(try result(.average, .integer, values) == .double(3))
        #expect(try result(.minimum, .integer, values) == .int(2))
        #expect(try result(.maximum, .integer, values) == .int(4))
    }

    @Test func integerSumIsExactUpToTheLimit() throws {
        #expect(try result(.sum, .integer, [.int(Int64.max - 1), .int(1)]) == .int(Int64.max))
        #expect(try result(.sum, .integer, [.int(Int64.min), .int(Int64.max)]) == .int(-1))
    }

    @Test func integerSumThatOverflowsThrows() {
        #expect(throws: StorageError.invalidRequest("sum overflows: the sum of 'x' does not fit in a 64-bit integer")) {
            try result(.sum, .integer, [.int(Int64.max), .int(1)])
        }
        // Even when later values bring it back: the evaluator never had an exact 64-bit sum.
        #expect(throws: StorageError.self) { try result(.sum, .integer, [.int(Int64.max), .int(1), .int(-1)]) }
        #expect(throws: StorageError.self) { try result(.sum, .integer, [.int(Int64.min), .int(-1)]) }
    }

    @Test func averageOfOverflowingIntegersIsExact() throws {
        // The exact sum, as a decimal, divided by the count.
        for values: [Value] in [[.int(Int64.max), .int(Int64.max), .int(Int64.max)], [.int(Int64.min), .int(-1), .int(1)], [.int(Int64.max), .int(2), .bool(true)]] {
            guard case .double(let average) = try result(.average, .integer, values) else { Issue.record("not a double"); continue }
            #expect(try average == Oracle.aggregate(.average, .integer, values).doubleValue)
            #expect(abs(average) > 3e18)
        }
    }

    @Test func booleansCountAsZeroAndOne() throws {
        let values: [Value] = [.bool(true), .bool(false), .bool(true), .null]
        #expect(try result(.sum, .bool, values) == .int(2))
        #expect(try result(.average, .bool, values) == .double(2.0 / 3.0))
        #expect(try result(.minimum, .bool, values) == .bool(false))
        #expect(try result(.count, .bool, values) == .int(3))
    }

    @Test func doublesAddInTheOrderGiven() throws {
        let values: [Value] = [.double(1e16), .double(1), .double(-1e16), .double(1)]
        #expect(try result(.sum, .double, values) == .double(((1e16 + 1) - 1e16) + 1))
        #expect(try result(.sum, .double, Array(values.reversed())) == .double(((1 + -1e16) + 1) + 1e16))
        #expect(try result(.average, .double, values) == .double((((1e16 + 1) - 1e16) + 1) / 4))
    }

    @Test func nanPropagatesThroughSumsButIsSkippedByMinimumAndMaximum() throws {
        let values: [Value] = [.double(2), .double(.nan), .double(-1)]
        guard case .double(let sum) = try result(.sum, .double, values) else { Issue.record("not a double"); return }
        #expect(sum.isNaN)
        guard case .double(let average) = try result(.average, .double, values) else { Issue.record("not a double"); return }
        #expect(average.isNaN)
        #expect(try result(.minimum, .double, values) == .double(-1))
        #expect(try result(.maximum, .double, values) == .double(2))
        #expect(try result(.minimum, .double, [.double(.nan)]) == .null)
        #expect(try result(.count, .double, values) == .int(3))
    }

    @Test func minimumAndMaximumKeepTheFirstOfEqualValues() throws {
        #expect(try result(.minimum, .double, [.double(-0.0), .double(0.0)]) == .double(-0.0))
        #expect(try result(.minimum, .double, [.double(0.0), .double(-0.0)]) == .double(0.0))
        #expect(try result(.maximum, .double, [.int(1), .double(1.0)]) == .int(1))
    }

    @Test func mixedNumbersInADoubleAttributeAddAsDoubles() throws {
        let values: [Value] = [.double(0.5), .int(2), .bool(true), .decimal(Decimal(string: "0.25")!), .string("damaged")]
        #expect(try result(.sum, .double, values) == .double(0.5 + 2 + 1 + 0.25 + 0))
        #expect(try result(.average, .double, values) == .double((0.5 + 2 + 1 + 0.25) / 5))
    }

    @Test func mixedNumbersInAnIntegerAttributeLeaveTheExactSum() throws {
        // A double in an integer column (a damaged store): no exact 64-bit sum, a decimal average.
        let values: [Value] = [.int(3), .double(0.5), .int(4)]
        #expect(throws: StorageError.self) { try result(.sum, .integer, values) }
        #expect(try result(.average, .integer, values) == .double(2.5))
    }

    @Test func decimalsStayDecimal() throws {
        let values: [Value] = [.decimal(Decimal(string: "0.1")!), .decimal(Decimal(string: "0.2")!), .int(1)]
        #expect(try result(.sum, .decimal, values) == .decimal(Decimal(string: "1.3")!))
        #expect(try result(.average, .decimal, values) == .decimal(Decimal(string: "1.3")! / 3))
    }

    @Test func sumOfANonNumberThrows() {
        #expect(throws: StorageError.self) { try result(.sum, .string, [.string("a")]) }
        #expect(throws: StorageError.self) { try result(.average, .date, [.date(Date())]) }
        #expect(throws: StorageError.self) { try result(.value, .integer, [.int(1)]) }
    }

    @Test func resumingFromANativeIntegerSumDividesLikeTheReference() throws {
        let native = AggregateAccumulator(.average, of: .integer, count: 3, exactIntegerSum: 10)
        #expect(native.count == 3)
        #expect(try native.result(for: "x") == result(.average, .integer, [.int(2), .int(3), .int(5)]))
    }

    /// Random value sequences give what the evaluator's former whole-array arithmetic gave.
    @Test(arguments: [AttributeType.integer, .bool, .double, .decimal])
    func matchesTheWholeArrayArithmetic(_ type: AttributeType) throws {
        var random = ValueSource(state: 0xC0FFEE &+ UInt64(type.rawValue.utf8.count))
        for _ in 0..<400 {
            let values = (0..<Int(random.next() % 12)).map { _ in random.value(for: type) }
            for function in [AggregateFunction.count, .sum, .average, .minimum, .maximum] {
                let expected = Result { try Oracle.aggregate(function, type, values) }
                let actual = Result { try result(function, type, values) }
                switch (expected, actual) {
                case (.success(let e), .success(let a)):
                    #expect(e == a, "\(function) of \(values)")
                    if case .double(let x) = e, case .double(let y) = a { #expect(x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)) }
                case (.failure(let e), .failure(let a)):
                    #expect("\(e)" == "\(a)")
                default:
                    Issue.record("\(function) of \(values): \(expected) against \(actual)")
                }
            }
        }
    }
}

/// Deterministic test values: a linear congruential sequence, so every run tries the same cases.
private struct ValueSource {
    var state: UInt64

    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 11
    }

    /// Mostly values of the type, sometimes `nil`, extremes, NaN or a value of another kind.
    mutating func value(for type: AttributeType) -> Value {
        switch next() % 16 {
        case 0: return .null
        case 1: return .int(next() % 2 == 0 ? Int64.max - Int64(next() % 3) : Int64.min + Int64(next() % 3))
        case 2: return .double(next() % 2 == 0 ? .nan : Double(Int64(next() % 2000) - 1000) / 7)
        case 3: return .decimal(Decimal(Int64(next() % 1000)) / 8)
        case 4: return .string("s")
        default:
            switch type {
            case .bool: return .bool(next() % 2 == 0)
            case .double: return .double(Double(Int64(next() % 2_000_000) - 1_000_000) / 1024)
            case .decimal: return .decimal(Decimal(Int64(next() % 20_000) - 10_000) / 100)
            default: return .int(next() % 4 == 0 ? Int64(bitPattern: next() << 11 | next()) : Int64(next() % 2000) - 1000)
            }
        }
    }
}

/// The evaluator's arithmetic before ``AggregateAccumulator``: whole arrays of values.
private enum Oracle {
    static func aggregate(_ function: AggregateFunction, _ type: AttributeType, _ values: [Value]) throws -> Value {
        let present = values.filter { !$0.isNull }
        switch function {
        case .count:
            return .int(Int64(present.count))
        case .minimum, .maximum:
            var best: Value?
            for value in present {
                if case .double(let d) = value, d.isNaN { continue }
                guard let current = best else { best = value; continue }
                let c = Value.storageOrder(value, current)
                if function == .minimum ? c < 0 : c > 0 { best = value }
            }
            return best ?? .null
        case .sum:
            guard !present.isEmpty else { return .null }
            switch type {
            case .double: return .double(doubleSum(present))
            case .decimal: return .decimal(decimalSum(present))
            default:
                guard let total = integerSum(present) else {
                    throw StorageError.invalidRequest("sum overflows: the sum of 'x' does not fit in a 64-bit integer")
                }
                return .int(total)
            }
        case .average:
            guard !present.isEmpty else { return .null }
            let count = present.count
            switch type {
            case .double: return .double(doubleSum(present) / Double(count))
            case .decimal: return .decimal(decimalSum(present) / Decimal(count))
            default:
                if let total = integerSum(present) { return .double(Double(total) / Double(count)) }
                return .double(NumericValue.decimal(decimalSum(present) / Decimal(count)).doubleValue)
            }
        case .value:
            throw StorageError.invalidRequest("'x' is not an aggregate")
        }
    }

    static func integerSum(_ values: [Value]) -> Int64? {
        var total: Int64 = 0
        for value in values {
            guard case .int(let i)? = value.numericValue else { return nil }
            let (sum, overflow) = total.addingReportingOverflow(i)
            if overflow { return nil }
            total = sum
        }
        return total
    }

    static func doubleSum(_ values: [Value]) -> Double {
        values.reduce(0.0) { $0 + ($1.numericValue?.doubleValue ?? 0) }
    }

    static func decimalSum(_ values: [Value]) -> Decimal {
        values.reduce(Decimal(0)) { total, value in
            switch value.numericValue {
            case .int(let i)?: return total + Decimal(i)
            case .decimal(let d)?: return total + d
            case .double(let d)?: return total + Decimal(d)
            case nil: return total
            }
        }
    }
}

private extension Value {
    /// The double of a `.double` value, NaN otherwise.
    var doubleValue: Double {
        if case .double(let d) = self { return d }
        return .nan
    }
}
