import Foundation
import CoreStoreStorage

/// Aggregates in SQL where the database's answer is exactly the reference one
/// (`AggregateEvaluator`; which ones, ``SQLAggregateQuery`` and the dialect say).
///
/// The rest is answered by fetching the records and running the reference evaluator: what
/// ``SQLAggregateQuery`` leaves out, and what the database gives up on
/// (``SQLConnection/abandonedAggregate(_:)``, an integer sum outside the 64-bit range, a column
/// holding a value the dialect never writes), so that the error or the exact answer is the
/// reference one.
extension SQLReader {
    package func aggregate(_ request: AggregateRequest, schema: StoreSchema) throws -> [[Value]] {
        let evaluator = AggregateEvaluator(schema: schema)
        try evaluator.validate(request)
        if let rows = try nativeAggregate(request, grouped: evaluator.isGrouped(request)) { return rows }
        return try aggregateByFetching(request, schema: schema)
    }

    /// Sums and averages of doubles are first asked for in any order where the dialect can tell
    /// when the order changes nothing (``SQLOrderFreeDoubleSum``); when a group fails that test,
    /// or such a sum is given up on (an overflow, which the key order might avoid), the query
    /// goes again with every double added in key order, and the store's
    /// ``SQLOrderedSumMemory`` (when it keeps one) sends the attribute's next aggregates there
    /// at once.
    private func nativeAggregate(_ request: AggregateRequest, grouped: Bool) throws -> [[Value]]? {
        for doubleSums in [SQLAggregateQuery.DoubleSums.inAnyOrderWhenExact, .inKeyOrder] {
            let query: SQLAggregateQuery
            do {
                guard let made = try SQLAggregateQuery.make(request, grouped: grouped, mapping: mapping, doubleSums: doubleSums) else { return nil }
                query = made
            } catch is SQLNeedsEvaluator {
                return nil
            }
            // An attribute whose sums failed the test lately goes to key order at once.
            if !query.orderFreeCheckKeys.isEmpty, orderedSumMemory?.addsInKeyOrder(request.entity, query.orderFreeCheckKeys) == true { continue }
            do {
                // Only the double aggregates may be given up on by a database whose errors
                // abort the transaction (PostgreSQL): the others run without a guard.
                let all = query.columns.contains(where: \.isExactDouble) ? try connection.attemptingAggregate { try rows(query) } : try rows(query)
                return query.windowInSQL ? all : RecordWindow.apply(all, offset: request.offset, limit: request.limit)
            } catch NativeAggregateFallback.evaluator {
                return nil
            } catch NativeAggregateFallback.keyOrder(let failedKeys) {
                orderedSumMemory?.noteFailedTest(request.entity, failedKeys)
                continue
            } catch let error as StorageError {
                guard connection.abandonedAggregate(error) else { throw error }
                if query.orderFreeCheckKeys.isEmpty { return nil }
                orderedSumMemory?.noteFailedTest(request.entity, query.orderFreeCheckKeys)
                continue
            }
        }
        return nil
    }

    private enum NativeAggregateFallback: Error {
        /// The reference evaluator must answer.
        case evaluator
        /// Sums of these double attributes added in any order may differ from the key-ordered ones.
        case keyOrder([String])
    }

    private func rows(_ query: SQLAggregateQuery) throws -> [[Value]] {
        var result: [[Value]] = []
        var fallback = false
        var failedKeys: [String] = []
        try connection.query(query.sql, parameters: query.parameters, leaves: query.leaves) { statement in
            var row: [Value] = []
            row.reserveCapacity(query.columns.count)
            var index: Int32 = 0
            for column in query.columns {
                switch column {
                case .value(let type):
                    row.append(try statement.value(index, as: type))
                    index += 1
                case .exactDouble:
                    let value = try statement.value(index, as: .double)
                    // A NaN total comes back without its sign and payload (as the text `NaN`),
                    // and the reference's is the one its own additions make (adding infinities
                    // of both signs gives a negative NaN on x86): the evaluator answers.
                    if case .double(let total) = value, total.isNaN { fallback = true }
                    row.append(value)
                    index += 1
                case .integer:
                    let value = try statement.value(index, as: .integer)
                    // A sum beyond the 64-bit range (a database that sums into a wider type):
                    // the evaluator reports it as the reference does.
                    if case .decimal = value { fallback = true }
                    row.append(value)
                    index += 1
                case .average:
                    // The database's integer sum and count are exact; the division is the reference one.
                    switch try statement.value(index, as: .integer) {
                    case .int(let sum):
                        let count = statement.integer(index + 1) ?? 0
                        row.append(count > 0 ? try AggregateAccumulator(.average, of: .integer, count: count, exactIntegerSum: sum).result(for: "") : .null)
                    case .null:
                        row.append(.null)
                    default:
                        // A sum outside the 64-bit range: the evaluator averages it exactly.
                        fallback = true
                        row.append(.null)
                    }
                    index += 2
                }
            }
            for check in 0..<query.unsummableChecks where statement.integer(index + Int32(check)) == 1 {
                fallback = true
            }
            index += Int32(query.unsummableChecks)
            // A boolean, read as 1 for true.
            for (check, key) in query.orderFreeCheckKeys.enumerated() where statement.integer(index + Int32(check)) != 1 {
                if !failedKeys.contains(key) { failedKeys.append(key) }
            }
            result.append(row)
        }
        if fallback { throw NativeAggregateFallback.evaluator }
        if !failedKeys.isEmpty { throw NativeAggregateFallback.keyOrder(failedKeys) }
        return result
    }
}
