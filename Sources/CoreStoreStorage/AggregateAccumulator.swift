import Foundation

/// The running value of one aggregate of one attribute over one group: the arithmetic of
/// ``AggregateEvaluator``, written once. Every backend that computes aggregates itself — the
/// evaluator, the key-value tier while it scans, SQLite's double sums — adds values to one of
/// these, so the results are the same to the bit.
///
/// Feed it the attribute's values of the group's records **in record key order** (that order
/// makes floating-point sums reproducible), then read ``result(for:)``:
///
/// ```swift
/// var total = AggregateAccumulator(.sum, of: .double)
/// for record in group { total.add(record.attributes[ordinal]) }
/// let value = try total.result(for: "score")
/// ```
///
/// ## Semantics
/// - `nil` values are skipped by every function; ``count`` is the number of the others.
/// - `count` is an `int`, `0` over no values. `sum`, `average`, `minimum` and `maximum` of no
///   values are ``Value/null``.
/// - Integer and boolean attributes (booleans count as 0 and 1): `sum` is an exact 64-bit
///   integer; when the exact sum leaves the 64-bit range, or a value is not an integer (a
///   damaged store), ``result(for:)`` throws ``StorageError/invalidRequest(_:)`` ("sum
///   overflows"). `average` is `Double(sum) / Double(count)` while the sum is exact, otherwise
///   the exact decimal sum divided by the count, as a double.
/// - Double attributes: `sum` adds each value, as a double, to a running total that starts at
///   `0.0`, in the order the values come (a value that is not a number adds `0`); `average` is
///   that total divided by the count. NaN propagates.
/// - Decimal attributes: `sum` is the decimal total (doubles converted with `Decimal(_:)`),
///   `average` that total divided by the count, a decimal.
/// - `minimum` and `maximum` compare with ``Value/storageOrder(_:_:)``, skip NaN doubles, and of
///   equal values keep the first.
/// - `sum` and `average` of any other attribute type throw ``StorageError/invalidRequest(_:)``
///   (``AggregateEvaluator`` rejects such requests before reading anything).
///
/// Adding a value allocates nothing; ``add(_:)`` is `@inlinable` so that scans in other modules
/// inline its common cases.
public struct AggregateAccumulator: Sendable {
    /// How `sum` and `average` combine values, from the attribute type.
    @usableFromInline
    enum Arithmetic: Sendable {
        /// Exact 64-bit integers, then exact decimals once they leave that range.
        case integer
        /// A running double total.
        case double
        /// A running decimal total.
        case decimal
        /// Not a number: `sum` and `average` throw.
        case none
    }

    /// What is computed.
    @usableFromInline
    let function: AggregateFunction
    /// How sums combine.
    @usableFromInline
    let arithmetic: Arithmetic
    /// The number of non-`nil` values added.
    @usableFromInline
    var valueCount: Int64 = 0
    /// The exact integer sum, while ``integerTotalIsExact``.
    @usableFromInline
    var integerTotal: Int64 = 0
    /// Whether every value so far was an integer and their sum fits in 64 bits.
    @usableFromInline
    var integerTotalIsExact = true
    /// The running sum of a double attribute.
    @usableFromInline
    var doubleTotal = 0.0
    /// The running sum of a decimal attribute, or of an integer one after it left the 64-bit
    /// range.
    @usableFromInline
    var decimalTotal = Decimal(0)
    /// The minimum or maximum so far.
    @usableFromInline
    var best: Value?

    /// An accumulator of `function` over the values of an attribute of `type`, with no values yet.
    public init(_ function: AggregateFunction, of type: AttributeType) {
        self.function = function
        switch type {
        case .bool, .integer: arithmetic = .integer
        case .double: arithmetic = .double
        case .decimal: arithmetic = .decimal
        case .string, .bytes, .date, .uuid, .url: arithmetic = .none
        }
    }

    /// An accumulator that has taken `count` integer (or boolean) values whose exact sum is
    /// `exactIntegerSum`: for an engine that sums integers natively (SQL `sum()` and `count()`
    /// are exact) and only needs the result.
    public init(_ function: AggregateFunction, of type: AttributeType, count: Int64, exactIntegerSum: Int64) {
        self.init(function, of: type)
        valueCount = count
        integerTotal = exactIntegerSum
    }

    /// The number of non-`nil` values added.
    @inlinable
    public var count: Int64 { valueCount }

    /// Adds the next value of the group (in record key order); `nil` is skipped.
    @inlinable
    public mutating func add(_ value: Value) {
        if case .null = value { return }
        valueCount += 1
        switch function {
        case .count, .value:
            return
        case .minimum, .maximum:
            if case .double(let d) = value, d.isNaN { return }
            guard let current = best else {
                best = value
                return
            }
            let c = Value.storageOrder(value, current)
            if function == .minimum ? c < 0 : c > 0 { best = value }
        case .sum, .average:
            switch arithmetic {
            case .double:
                if case .double(let d) = value {
                    doubleTotal += d
                } else {
                    doubleTotal += value.numericValue?.doubleValue ?? 0
                }
            case .integer:
                if integerTotalIsExact, case .int(let i) = value {
                    let (total, overflow) = integerTotal.addingReportingOverflow(i)
                    if !overflow {
                        integerTotal = total
                        return
                    }
                }
                addInexactly(value)
            case .decimal:
                decimalTotal = Self.adding(value, to: decimalTotal)
            case .none:
                return
            }
        }
    }

    /// Adds an integer value: the same as `add(.int(value))`, without making the ``Value``
    /// (for scans that read numbers straight from record bytes).
    @inlinable
    public mutating func add(integer value: Int64) {
        switch function {
        case .count, .value:
            valueCount += 1
        case .sum, .average:
            // (A `where` clause would guard only the last pattern of the case.)
            if arithmetic == .integer && integerTotalIsExact {
                let (total, overflow) = integerTotal.addingReportingOverflow(value)
                if !overflow {
                    valueCount += 1
                    integerTotal = total
                    return
                }
            }
            addOutOfLine(.int(value))
        case .minimum, .maximum:
            addOutOfLine(.int(value))
        }
    }

    /// Adds a double value: the same as `add(.double(value))`, without making the ``Value``.
    @inlinable
    public mutating func add(double value: Double) {
        switch function {
        case .count, .value:
            valueCount += 1
        case .sum, .average:
            if arithmetic == .double {
                valueCount += 1
                doubleTotal += value
            } else {
                addOutOfLine(.double(value))
            }
        case .minimum, .maximum:
            addOutOfLine(.double(value))
        }
    }

    /// ``add(_:)`` kept out of line, for the uncommon cases of ``add(integer:)`` and
    /// ``add(double:)``: a scan that inlines those stays small.
    @usableFromInline
    @inline(never)
    mutating func addOutOfLine(_ value: Value) {
        add(value)
    }

    /// The integer sum's uncommon cases: a boolean, a sum leaving the 64-bit range, a value that
    /// is not an integer, and every value after those (added to the exact decimal total).
    @usableFromInline
    mutating func addInexactly(_ value: Value) {
        if integerTotalIsExact {
            if case .bool(let b) = value {
                let (total, overflow) = integerTotal.addingReportingOverflow(b ? 1 : 0)
                if !overflow {
                    integerTotal = total
                    return
                }
            }
            // The integers so far are exact as a decimal: their sum continues there.
            integerTotalIsExact = false
            decimalTotal = Decimal(integerTotal)
        }
        decimalTotal = Self.adding(value, to: decimalTotal)
    }

    /// `total` plus `value` as a decimal; a value that is not a number adds nothing, and a NaN
    /// or infinite double (which `Decimal` cannot hold) makes the total NaN.
    @usableFromInline
    static func adding(_ value: Value, to total: Decimal) -> Decimal {
        switch value.numericValue {
        case .int(let i)?: return total + Decimal(i)
        case .decimal(let d)?: return total + d
        case .double(let d)?: return d.isFinite ? total + Decimal(d) : Decimal.nan
        case nil: return total
        }
    }

    /// The aggregate of the values added (see the type's semantics). `key` names the attribute
    /// in the error thrown for an integer sum that overflows.
    public func result(for key: String) throws -> Value {
        switch function {
        case .count:
            return .int(valueCount)
        case .minimum, .maximum:
            return best ?? .null
        case .sum:
            guard valueCount > 0 else { return .null }
            switch arithmetic {
            case .double:
                return .double(doubleTotal)
            case .decimal:
                return .decimal(decimalTotal)
            case .integer:
                guard integerTotalIsExact else {
                    throw StorageError.invalidRequest("sum overflows: the sum of '\(key)' does not fit in a 64-bit integer")
                }
                return .int(integerTotal)
            case .none:
                throw Self.notANumber(function, key)
            }
        case .average:
            guard valueCount > 0 else { return .null }
            switch arithmetic {
            case .double:
                return .double(doubleTotal / Double(valueCount))
            case .decimal:
                return .decimal(decimalTotal / Decimal(valueCount))
            case .integer:
                if integerTotalIsExact { return .double(Double(integerTotal) / Double(valueCount)) }
                return .double(NumericValue.decimal(decimalTotal / Decimal(valueCount)).doubleValue)
            case .none:
                throw Self.notANumber(function, key)
            }
        case .value:
            throw StorageError.invalidRequest("'\(key)' is not an aggregate")
        }
    }

    private static func notANumber(_ function: AggregateFunction, _ key: String) -> StorageError {
        .invalidRequest("cannot compute the \(function.rawValue) of '\(key)': it is not a number")
    }
}
