import CoreStoreStorage

/// The SQL of an aggregate request, when the database's answer is exactly the reference one
/// (`AggregateEvaluator`):
///
/// - ungrouped requests (attribute values and relationship counts per record), always;
/// - grouped requests whose group keys are booleans, integers, strings, URLs, bytes, UUIDs or
///   dates, with `count` of any attribute, `minimum`/`maximum` of those same types,
///   `sum`/`average` of booleans and integers (64-bit integer sums are exact; one that
///   overflows is an error the backend answers by evaluating), and `sum`/`average` of doubles
///   through the dialect's exact double aggregate, when it has one — or, asked for
///   (``DoubleSums/inAnyOrderWhenExact``), through its order-free one
///   (``SQLOrderFreeDoubleSum``), whose test of each group the backend reads
///   (``orderFreeCheckKeys``) and, when one fails, asks again in key order.
///
/// The rest is for the backend to answer by fetching the records and running the reference
/// evaluator (``make(_:grouped:mapping:doubleSums:)`` returns `nil`):
/// - double group keys: the evaluator puts `0.0` and `-0.0` (and `1` and `1.0`) in one group
///   whose value is the one of the lowest key, and NaN is one value; `GROUP BY` does neither;
/// - decimal group keys, sums and averages: SQL has no decimal arithmetic the evaluator's
///   matches;
/// - `minimum`/`maximum` of doubles and decimals: NaN is skipped, and of equal values (`0.0` and
///   `-0.0`) the evaluator keeps the first in key order, which `min()`/`max()` do not promise.
package struct SQLAggregateQuery {
    /// What one output column of the result holds, and how to decode it.
    package enum Column: Sendable {
        /// An attribute value of this type (a group key, minimum or maximum, or a value per record).
        case value(AttributeType)
        /// An integer: a count or an integer sum.
        case integer
        /// `average` of integers: two result columns, an exact sum and a count, which the
        /// backend divides with `AggregateAccumulator`.
        case average
        /// A double computed by the dialect's exact double aggregate.
        case exactDouble

        /// Whether this is ``exactDouble``.
        package var isExactDouble: Bool {
            if case .exactDouble = self { return true }
            return false
        }
    }

    /// The statement.
    package let sql: String
    /// Its parameters, in placeholder order.
    package let parameters: [SQLValue]
    /// The fallback leaves its predicate refers to.
    package let leaves: [SQLFallbackLeaf]
    /// The output columns, in order.
    package let columns: [Column]
    /// How many result columns follow `columns`: one per sum or average of integers or booleans
    /// (``SQLDialect/unsummableIntegerCheck(_:)``), each 1 when its column holds a value the
    /// database cannot sum (then the backend evaluates instead).
    package let unsummableChecks: Int
    /// The attributes whose tests are the result columns after the unsummable checks: one per
    /// double attribute summed or averaged in any order (``DoubleSums/inAnyOrderWhenExact``),
    /// each true when its group's totals are the key-ordered ones. When one is false, the
    /// backend asks again with ``DoubleSums/inKeyOrder``.
    package let orderFreeCheckKeys: [String]
    /// Whether `LIMIT`/`OFFSET` are in the SQL. When not, the backend applies the window to the
    /// rows: a sum that fails is an error whichever groups the window keeps, but a database
    /// skips groups outside `LIMIT`/`OFFSET`.
    package let windowInSQL: Bool

    /// How the query asks for sums and averages of doubles.
    package enum DoubleSums: Sendable {
        /// Added in any order, with a test per group, where the dialect has an order-free
        /// aggregate (``SQLDialect/orderFreeDoubleAggregate(average:column:)``); in key order
        /// elsewhere.
        case inAnyOrderWhenExact
        /// Added in record-key order (``SQLDialect/exactDoubleAggregate(average:key:column:)``).
        case inKeyOrder
    }

    /// The query for `request` over `mapping`, or `nil` when the backend must evaluate it.
    /// `grouped` is `AggregateEvaluator.isGrouped(request)`. Throws for unknown entities and keys,
    /// and ``SQLNeedsEvaluator`` when the predicate needs it.
    package static func make(
        _ request: AggregateRequest, grouped: Bool, mapping: SQLSchemaMapping, doubleSums: DoubleSums = .inKeyOrder
    ) throws -> SQLAggregateQuery? {
        let entity = try mapping.entity(request.entity)
        let dialect = mapping.dialect
        var builder = SQLQueryBuilder(mapping: mapping)
        func attribute(_ key: String) throws -> (column: String, type: AttributeType) {
            guard let ordinal = mapping.schema.attributeOrdinal(key, in: entity.name) else {
                throw StorageError.unknownKey(key: key, entity: entity.name)
            }
            return ("t0.\(entity.attributeColumns[ordinal].sqlIdentifier)", entity.attributeTypes[ordinal])
        }

        if !grouped {
            var expressions: [String] = []
            var columns: [Column] = []
            for term in request.terms {
                if term.function == .count, let ordinal = mapping.schema.relationshipOrdinal(term.key, in: entity.name) {
                    expressions.append(builder.countExpression(entity.relationships[ordinal], owner: "t0"))
                    columns.append(.integer)
                } else {
                    let (column, type) = try attribute(term.key)
                    expressions.append(column)
                    columns.append(.value(type))
                }
            }
            let fetch = FetchRequest(entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate,
                                     sortDescriptors: request.sortDescriptors, limit: request.limit, offset: request.offset)
            let sql = try builder.select(expressions.joined(separator: ", "), fetch)
            return SQLAggregateQuery(sql: sql, parameters: builder.parameters, leaves: builder.leaves, columns: columns,
                                     unsummableChecks: 0, orderFreeCheckKeys: [], windowInSQL: true)
        }

        let exactTypes: Set<AttributeType> = [.bool, .integer, .string, .url, .bytes, .uuid, .date]
        var groupColumns: [String] = []
        for key in request.groupBy {
            let (column, type) = try attribute(key)
            guard exactTypes.contains(type) else { return nil }
            groupColumns.append(column)
        }
        var expressions: [String] = []
        var columns: [Column] = []
        var checks: [String] = []
        var orderFreeChecks: [(key: String, test: String)] = []
        for term in request.terms {
            let (column, type) = try attribute(term.key)
            switch term.function {
            case .value:
                expressions.append(column)
                columns.append(.value(type))
            case .count:
                expressions.append("count(\(column))")
                columns.append(.integer)
            case .minimum, .maximum:
                guard exactTypes.contains(type), dialect.hasMinimumAndMaximum(of: type) else { return nil }
                expressions.append("\(term.function == .minimum ? "min" : "max")(\(column))")
                columns.append(.value(type))
            case .sum, .average:
                if type == .double {
                    let average = term.function == .average
                    if doubleSums == .inAnyOrderWhenExact, let orderFree = dialect.orderFreeDoubleAggregate(average: average, column: column) {
                        expressions.append(orderFree.call)
                        columns.append(.exactDouble)
                        // A sum and an average of one attribute share its test.
                        if !orderFreeChecks.contains(where: { $0.key == term.key }) { orderFreeChecks.append((term.key, orderFree.isExact)) }
                        continue
                    }
                    guard let call = dialect.exactDoubleAggregate(average: average, key: "t0.\"_key\"", column: column) else { return nil }
                    expressions.append(call)
                    columns.append(.exactDouble)
                    continue
                }
                guard type == .integer || type == .bool else { return nil }
                if let check = dialect.unsummableIntegerCheck(column) { checks.append(check) }
                if term.function == .sum {
                    expressions.append("sum(\(column))")
                    columns.append(.integer)
                } else {
                    expressions.append("sum(\(column)), count(\(column))")
                    columns.append(.average)
                }
            }
        }
        var sql = "SELECT \((expressions + checks + orderFreeChecks.map(\.test)).joined(separator: ", ")) FROM \(entity.table.sqlIdentifier) t0"
        sql += try builder.whereClause(entity: entity, predicate: request.predicate, includesSubentities: request.includesSubentities)
        if !groupColumns.isEmpty {
            let readsOtherColumns = request.terms.contains { !request.groupBy.contains($0.key) }
            sql += " GROUP BY " + groupColumns.map { dialect.groupingTerm($0, readsOtherColumns: readsOtherColumns) }.joined(separator: ", ")
            var order: [String] = []
            var ordered = Set<String>()
            for descriptor in request.sortDescriptors {
                let (column, type) = try attribute(descriptor.key)
                order += builder.orderTerms(column, type: type, ascending: descriptor.ascending)
                ordered.insert(descriptor.key)
            }
            for key in request.groupBy where !ordered.contains(key) {
                order.append(dialect.orderTerm(try attribute(key).column, direction: "ASC"))
            }
            sql += " ORDER BY " + order.joined(separator: ", ")
        }
        // A sum or an average can fail (overflow, a value it cannot read) whichever groups the
        // window keeps.
        let windowInSQL = !request.terms.contains { $0.function == .sum || $0.function == .average }
        if windowInSQL { sql += builder.window(limit: request.limit, offset: request.offset) }
        return SQLAggregateQuery(sql: sql, parameters: builder.parameters, leaves: builder.leaves, columns: columns,
                                 unsummableChecks: checks.count, orderFreeCheckKeys: orderFreeChecks.map(\.key), windowInSQL: windowInSQL)
    }
}
