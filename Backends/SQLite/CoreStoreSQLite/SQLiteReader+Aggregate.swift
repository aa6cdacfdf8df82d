import Foundation
import CoreStoreSQL
import CoreStoreStorage

/// Aggregates in SQL where SQLite's answer is exactly the reference one (`AggregateEvaluator`;
/// which ones, ``SQLAggregateQuery`` says), with `sum`/`average` of doubles through
/// `corestore_sum_double` / `corestore_average_double`, which hand the values in record key
/// order to `AggregateAccumulator`, the evaluator's own arithmetic (see
/// `SQLiteFunctions.DoubleSum`).
///
/// The rest is answered by fetching the records and running the reference evaluator: what
/// ``SQLAggregateQuery`` leaves out, and
/// - integer columns holding values above `Int64.max` (stored as text) under `sum`/`average`,
///   and integer sums that overflow: the evaluator reports or averages them exactly;
/// - double columns holding something other than a number or NaN (a damaged database), so that
///   the error is the one a fetch reports.
extension SQLiteReader {
    func aggregate(_ request: AggregateRequest, schema: StoreSchema) throws -> [[Value]] {
        let evaluator = AggregateEvaluator(schema: schema)
        try evaluator.validate(request)
        if let rows = try nativeAggregate(request, grouped: evaluator.isGrouped(request)) { return rows }
        return try aggregateByFetching(request, schema: schema)
    }

    private func nativeAggregate(_ request: AggregateRequest, grouped: Bool) throws -> [[Value]]? {
        guard let query = try SQLAggregateQuery.make(request, grouped: grouped, mapping: mapping) else { return nil }
        do {
            let all = try rows(query)
            return query.windowInSQL ? all : RecordWindow.apply(all, offset: request.offset, limit: request.limit)
        } catch NativeAggregateFallback.needed {
            return nil
        } catch let error as StorageError {
            // SQLite's sum() stops on overflow; the evaluator reports it (or averages exactly).
            if case .engine(_, let message) = error, message.contains("integer overflow") { return nil }
            // A double aggregate met a value it cannot decode: the fetch reports it.
            if case .engine(_, let message) = error, message.contains(SQLiteFunctions.fallbackMessage) { return nil }
            throw error
        }
    }

    private enum NativeAggregateFallback: Error { case needed }

    private func rows(_ query: SQLAggregateQuery) throws -> [[Value]] {
        var result: [[Value]] = []
        var fallback = false
        try run(query.sql, parameters: query.parameters, leaves: query.leaves) { statement in
            var row: [Value] = []
            row.reserveCapacity(query.columns.count)
            var index: Int32 = 0
            for column in query.columns {
                switch column {
                case .value(let type):
                    row.append(try SQLiteValueCodec.decode(statement.column(index), as: type))
                    index += 1
                case .exactDouble:
                    row.append(try SQLiteValueCodec.decode(statement.column(index), as: .double))
                    index += 1
                case .integer:
                    row.append(try SQLiteValueCodec.decode(statement.column(index), as: .integer))
                    index += 1
                case .average:
                    if case .integer(let sum) = statement.column(index), case .integer(let count) = statement.column(index + 1), count > 0 {
                        // SQLite's integer sum and count are exact; the division is the reference one.
                        row.append(try AggregateAccumulator(.average, of: .integer, count: count, exactIntegerSum: sum).result(for: ""))
                    } else {
                        row.append(.null)
                    }
                    index += 2
                }
            }
            for check in 0..<query.unsummableChecks where statement.column(index + Int32(check)) == .integer(1) {
                fallback = true
            }
            result.append(row)
        }
        if fallback { throw NativeAggregateFallback.needed }
        return result
    }
}
