import Foundation
import CoreStoreStorage

/// Translates requests into SQL with numbered parameters (the dialect's placeholders): no value
/// is ever written into the SQL text.
///
/// Every condition it produces is exactly true or false (never NULL), so `NOT`, `ALL` and
/// `NONE` keep the reference semantics of `PredicateEvaluator`. Comparisons the database
/// answers identically are translated natively (and can use indexes); the rest become the
/// dialect's fallback test (``SQLDialect/fallbackTest(_:leaf:)``), or, when it has none, the
/// builder throws ``SQLNeedsEvaluator``.
package struct SQLQueryBuilder {
    package let mapping: SQLSchemaMapping
    private let dialect: any SQLDialect
    /// The values of the statement's parameters, in placeholder order.
    package private(set) var parameters: [SQLValue] = []
    /// The comparisons the statement tests through the dialect's fallback test, in leaf order.
    package private(set) var leaves: [SQLFallbackLeaf] = []
    private var aliasCount = 0

    package init(mapping: SQLSchemaMapping) {
        self.mapping = mapping
        self.dialect = mapping.dialect
    }

    /// Adds a parameter and returns its placeholder.
    package mutating func bind(_ value: SQLValue) -> String {
        parameters.append(value)
        return dialect.placeholder(parameters.count)
    }

    private mutating func newAlias() -> String {
        aliasCount += 1
        return "t\(aliasCount)"
    }

    // MARK: Requests

    /// `SELECT <columns> FROM … WHERE … ORDER BY … LIMIT … OFFSET …` for a fetch request; the
    /// main table's alias is `t0`.
    ///
    /// The `ORDER BY` is `RecordOrder`, the order every store returns: the terms of each sort key
    /// (``orderTerms(_:type:ascending:)``), then `_key` ascending, the record-key tie-break
    /// (left out with `breakingTiesByKey: false`, for a reader that breaks ties itself:
    /// ``SQLTopRowsWindow``).
    package mutating func select(_ columns: String, _ request: FetchRequest, sorted: Bool = true, windowed: Bool = true, breakingTiesByKey: Bool = true) throws -> String {
        let entity = try mapping.entity(request.entity)
        var conditions: [String] = []
        if let filter = mapping.kindFilter(entity, alias: "t0", includesSubentities: request.includesSubentities) {
            conditions.append(filter)
        }
        if let predicate = request.predicate {
            conditions.append(try condition(predicate, entity: entity.name, alias: "t0", inWhere: true))
        }
        var sql = "SELECT \(columns) FROM \(entity.table.sqlIdentifier) t0"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if sorted {
            var terms: [String] = []
            let numeric = Self.keysKeptNumeric(by: request.predicate)
            for descriptor in request.sortDescriptors {
                guard let ordinal = mapping.schema.attributeOrdinal(descriptor.key, in: entity.name) else {
                    throw StorageError.unknownKey(key: descriptor.key, entity: entity.name)
                }
                let column = "t0.\(entity.attributeColumns[ordinal].sqlIdentifier)"
                if numeric.contains(descriptor.key) {
                    // The filter lets only numbers through: no `nil` or NaN to rank first.
                    terms.append(dialect.orderTerm(column, direction: descriptor.ascending ? "ASC" : "DESC"))
                } else {
                    terms += orderTerms(column, type: entity.attributeTypes[ordinal], ascending: descriptor.ascending)
                }
            }
            if breakingTiesByKey { terms.append("t0.\"_key\" ASC") }
            sql += " ORDER BY " + terms.joined(separator: ", ")
        }
        if windowed { sql += window(limit: request.limit, offset: request.offset) }
        return sql
    }

    /// ` LIMIT … OFFSET …` for a window, or an empty string when there is none. A zero offset is
    /// left out (SQLite's top-N sort runs measurably slower with an `OFFSET 0`).
    package mutating func window(limit: Int?, offset: Int) -> String {
        guard limit != nil || offset > 0 else { return "" }
        let limitValue = limit.map { SQLValue.integer(Int64($0)) } ?? dialect.noLimit
        let limitClause = " LIMIT \(bind(limitValue))"
        return offset > 0 ? limitClause + " OFFSET \(bind(.integer(Int64(offset))))" : limitClause
    }

    /// The conditions (`WHERE …`, or an empty string) selecting the rows of a request's entity.
    package mutating func whereClause(entity: SQLSchemaMapping.EntityMapping, predicate: RecordPredicate?, includesSubentities: Bool) throws -> String {
        var conditions: [String] = []
        if let filter = mapping.kindFilter(entity, alias: "t0", includesSubentities: includesSubentities) { conditions.append(filter) }
        if let predicate { conditions.append(try condition(predicate, entity: entity.name, alias: "t0", inWhere: true)) }
        return conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }

    /// The attributes that every matching row holds as a number: those a top-level conjunct of
    /// `predicate` compares (`==`, `<`, `<=`, `>`, `>=`, without string options or `NONE`) with a number
    /// that is not NaN. Such a comparison is false for `nil`, and for NaN (stored as text) by
    /// its own guard, so a sort on that attribute needs no term to rank them.
    package static func keysKeptNumeric(by predicate: RecordPredicate?) -> Set<String> {
        guard let predicate else { return [] }
        let conjuncts: [RecordPredicate]
        if case .and(let parts) = predicate { conjuncts = parts } else { conjuncts = [predicate] }
        var keys = Set<String>()
        for case .comparison(let c) in conjuncts where c.keyPath.count == 1 && c.function == nil && c.options.isEmpty && c.quantifier != .none {
            guard [.equal, .less, .lessOrEqual, .greater, .greaterOrEqual].contains(c.op), case .value(let value) = c.operand else { continue }
            switch value {
            case .int: keys.insert(c.keyPath[0])
            case .double(let d) where !d.isNaN: keys.insert(c.keyPath[0])
            default: continue
            }
        }
        return keys
    }

    /// The ORDER BY terms of one sort key, in `RecordOrder` (`Value.storageOrder` per key):
    /// `nil` first when ascending, and for doubles NaN before every number. The columns' declared
    /// types and collations (``SQLDialect/columnDefinition(_:)``) compare integers and doubles numerically and exactly, strings by
    /// their UTF-8 bytes and decimals numerically, as that order does.
    ///
    /// For doubles one `CASE` ranks `nil`, NaN and numbers, so the sorter evaluates one extra
    /// key per row rather than two.
    package func orderTerms(_ column: String, type: AttributeType, ascending: Bool) -> [String] {
        let direction = ascending ? "ASC" : "DESC"
        if type == .double {
            return ["CASE WHEN \(column) IS NULL THEN 0 WHEN \(dialect.holdsNaN(column)) THEN 1 ELSE 2 END \(direction)", dialect.orderTerm(column, direction: direction)]
        }
        return [dialect.orderTerm(column, direction: direction)]
    }

    // MARK: Predicates

    /// A true/false SQL condition for `predicate` on the rows of `entity` under `alias`.
    ///
    /// `inWhere`: the condition is (an `AND`/`OR` operand of) a `WHERE` clause, where NULL
    /// counts as false, so a comparison needs no guard that turns NULL into 0. Under `NOT` it
    /// does.
    package mutating func condition(_ predicate: RecordPredicate, entity: String, alias: String, inWhere: Bool = false) throws -> String {
        switch predicate {
        case .constant(let value):
            return value ? "TRUE" : "FALSE"
        case .not(let inner):
            return "(NOT \(try condition(inner, entity: entity, alias: alias)))"
        case .and(let parts):
            if parts.isEmpty { return "TRUE" }
            let terms = inWhere
                ? try whereConjuncts(parts, entity: entity, alias: alias)
                : try parts.map { try condition($0, entity: entity, alias: alias) }
            return "(" + terms.joined(separator: " AND ") + ")"
        case .or(let parts):
            if parts.isEmpty { return "FALSE" }
            return "(" + (try parts.map { try condition($0, entity: entity, alias: alias, inWhere: inWhere) }).joined(separator: " OR ") + ")"
        case .comparison(let comparison):
            return try self.comparison(comparison, entity: entity, alias: alias, inWhere: inWhere)
        }
    }

    /// The terms of an `AND` that stands directly in a `WHERE` clause. A lower and an upper bound
    /// on the same column of the row become one range test: the upper bound already rejects NaN
    /// (every dialect orders it after every number), so the lower one needs no guard of its own,
    /// and `BETWEEN` reads the column once.
    private mutating func whereConjuncts(_ parts: [RecordPredicate], entity: String, alias: String) throws -> [String] {
        var terms: [String] = []
        var paired = Set<Int>()
        for (i, part) in parts.enumerated() where !paired.contains(i) {
            if case .comparison(let first) = part, let isLower = Self.boundDirection(first),
               let j = parts.indices.first(where: { j in
                   guard j > i, !paired.contains(j), case .comparison(let other) = parts[j] else { return false }
                   return other.keyPath == first.keyPath && Self.boundDirection(other) == !isLower
               }),
               case .comparison(let second) = parts[j],
               let range = try rangeTest(lower: isLower ? first : second, upper: isLower ? second : first, entity: entity, alias: alias) {
                paired.insert(j)
                terms.append(range)
                continue
            }
            terms.append(try condition(part, entity: entity, alias: alias, inWhere: true))
        }
        return terms
    }

    /// `true` for a lower bound (`>`, `>=`) and `false` for an upper bound (`<`, `<=`) of a
    /// row's own column by one constant; `nil` for any other comparison.
    private static func boundDirection(_ c: Comparison) -> Bool? {
        guard c.keyPath.count == 1, c.function == nil, c.options.isEmpty, c.quantifier != .none,
              case .value(let value) = c.operand, !value.isNull else { return nil }
        switch c.op {
        case .greater, .greaterOrEqual: return true
        case .less, .lessOrEqual: return false
        default: return nil
        }
    }

    /// One test of a column between two bounds (see ``whereConjuncts(_:entity:alias:)``), or
    /// `nil` when the key is no attribute or a bound is not compared natively.
    private mutating func rangeTest(lower: Comparison, upper: Comparison, entity: String, alias: String) throws -> String? {
        let mapped = try mapping.entity(entity)
        guard let ordinal = mapping.schema.attributeOrdinal(lower.keyPath[0], in: entity),
              case .value(let low) = lower.operand, case .value(let high) = upper.operand else { return nil }
        let type = mapped.attributeTypes[ordinal]
        guard case .sql(let lowParameter) = dialect.comparisonParameter(low, for: type),
              case .sql(let highParameter) = dialect.comparisonParameter(high, for: type) else { return nil }
        let lhs = dialect.comparable("\(alias).\(mapped.attributeColumns[ordinal].sqlIdentifier)", type: type)
        if lower.op == .greaterOrEqual && upper.op == .lessOrEqual {
            return "(\(lhs) BETWEEN \(bind(lowParameter)) AND \(bind(highParameter)))"
        }
        let lowOperator = lower.op == .greater ? ">" : ">="
        let highOperator = upper.op == .less ? "<" : "<="
        return "(\(lhs) \(lowOperator) \(bind(lowParameter)) AND \(lhs) \(highOperator) \(bind(highParameter)))"
    }

    private mutating func comparison(_ c: Comparison, entity: String, alias: String, inWhere: Bool) throws -> String {
        guard let last = c.keyPath.last else { throw StorageError.invalidRequest("a comparison has an empty key path") }
        let schema = mapping.schema
        var current = try mapping.entity(entity)
        var owner = alias
        var joins: [String] = []
        var crossesToMany = false
        for key in c.keyPath.dropLast() {
            guard let ordinal = schema.relationshipOrdinal(key, in: current.name) else {
                if schema.attributeOrdinal(key, in: current.name) != nil {
                    throw StorageError.invalidRequest("'\(key)' is an attribute of '\(current.name)' and cannot be followed by more keys in '\(c.keyPath.joined(separator: "."))'")
                }
                throw StorageError.unknownKey(key: key, entity: current.name)
            }
            let relationship = current.relationships[ordinal]
            let next = newAlias()
            let destination = relationship.destinationTable.sqlIdentifier
            switch relationship.storage {
            case .foreignKey(let column):
                joins.append("LEFT JOIN \(destination) \(next) ON \(next).\"_key\" = \(owner).\(column.sqlIdentifier)")
            case .inverseForeignKey(let column, _):
                joins.append("JOIN \(destination) \(next) ON \(next).\(column.sqlIdentifier) = \(owner).\"_key\"")
                crossesToMany = true
            case .joinTable(let table):
                let link = newAlias()
                joins.append("JOIN \(table.sqlIdentifier) \(link) ON \(link).\"source\" = \(owner).\"_key\" JOIN \(destination) \(next) ON \(next).\"_key\" = \(link).\"destination\"")
                crossesToMany = true
            }
            owner = next
            current = try mapping.entity(relationship.destination)
        }

        let test: String
        if let ordinal = schema.attributeOrdinal(last, in: current.name) {
            if let function = c.function {
                throw StorageError.invalidRequest("'\(function.rawValue)' needs a relationship, but '\(last)' is an attribute of '\(current.name)'")
            }
            // Only a comparison of the row's own column stands directly in the WHERE clause.
            let direct = inWhere && joins.isEmpty && c.quantifier != .none
            test = try valueTest("\(owner).\(current.attributeColumns[ordinal].sqlIdentifier)", type: current.attributeTypes[ordinal], c, inWhere: direct)
        } else if let ordinal = schema.relationshipOrdinal(last, in: current.name) {
            let relationship = current.relationships[ordinal]
            if c.function == .count {
                test = try valueTest(countExpression(relationship, owner: owner), type: .integer, c)
            } else {
                test = try relationshipTest(relationship, owner: owner, c)
            }
        } else {
            throw StorageError.unknownKey(key: last, entity: current.name)
        }

        if joins.isEmpty {
            return c.quantifier == .none ? "(NOT \(test))" : test
        }
        let from = "FROM (SELECT 1) AS one " + joins.joined(separator: " ")
        if !crossesToMany {
            let single = "(SELECT \(test) \(from))"
            return c.quantifier == .none ? "(NOT \(single))" : single
        }
        switch c.quantifier {
        case .any: return "EXISTS (SELECT 1 \(from) WHERE \(test))"
        case .all: return "(NOT EXISTS (SELECT 1 \(from) WHERE NOT \(test)))"
        case .none: return "(NOT EXISTS (SELECT 1 \(from) WHERE \(test)))"
        }
    }

    // MARK: Leaves

    /// A true/false test of one value expression of `type`.
    private mutating func valueTest(_ value: String, type: AttributeType, _ c: Comparison, inWhere: Bool = false) throws -> String {
        if c.options.isEmpty, let native = nativeTest(value, type: type, c, inWhere: inWhere) { return native }
        guard let test = dialect.fallbackTest(value, leaf: leaves.count) else { throw SQLNeedsEvaluator(comparison: c) }
        leaves.append(SQLFallbackLeaf(comparison: c, type: type))
        return test
    }

    /// The native translation, or `nil` when the fallback test must decide.
    ///
    /// A comparison with a non-NULL parameter is NULL only when the column is, so
    /// `(… AND value IS NOT NULL)` makes it exactly true or false. Unlike `coalesce(…, FALSE)`, that form
    /// leaves the comparison a term of the WHERE clause's AND chain, where SQLite can answer it
    /// with an index.
    ///
    /// Directly in a `WHERE` clause (`inWhere`) NULL already counts as false, so the
    /// `IS NOT NULL` guard is left out; and since every dialect orders NaN after every number,
    /// `<` and `<=` need no guard against NaN either.
    private mutating func nativeTest(_ value: String, type: AttributeType, _ c: Comparison, inWhere: Bool = false) -> String? {
        let lhs = dialect.comparable(value, type: type)
        let isBelow = c.op == .less || c.op == .lessOrEqual
        let guardNaN = type == .double && !(inWhere && isBelow) ? " AND \(dialect.holdsNumber(value))" : ""
        // `!=` is the negation of a guarded `==`: NULL must become 0 before `NOT`.
        let notNull = inWhere && c.op != .notEqual ? "" : " AND \(value) IS NOT NULL"
        switch c.op {
        case .equal, .notEqual:
            guard case .value(let operand) = c.operand else { return nil }
            let equal: String
            if operand.isNull {
                equal = "(\(value) IS NULL)"
            } else {
                switch dialect.comparisonParameter(operand, for: type) {
                case .never: equal = "FALSE"
                case .fallback: return nil
                case .sql(let p): equal = "(\(lhs) = \(bind(p))\(notNull))"
                }
            }
            return c.op == .equal ? equal : "(NOT \(equal))"
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard case .value(let operand) = c.operand else { return nil }
            if operand.isNull { return "FALSE" }
            switch dialect.comparisonParameter(operand, for: type) {
            case .never: return "FALSE"
            case .fallback: return nil
            case .sql(let p):
                let op = c.op == .less ? "<" : c.op == .lessOrEqual ? "<=" : c.op == .greater ? ">" : ">="
                return "(\(lhs) \(op) \(bind(p))\(guardNaN)\(notNull))"
            }
        case .in:
            guard case .list(let values) = c.operand else { return nil }
            var members: [SQLValue] = []
            var includesNil = false
            for member in values {
                if member.isNull { includesNil = true; continue }
                switch dialect.comparisonParameter(member, for: type) {
                case .never: continue
                case .fallback: return nil
                case .sql(let p): members.append(p)
                }
            }
            var parts: [String] = []
            if !members.isEmpty { parts.append("(\(lhs) IN \(inList(members))\(notNull))") }
            if includesNil { parts.append("(\(value) IS NULL)") }
            return parts.isEmpty ? "FALSE" : "(" + parts.joined(separator: " OR ") + ")"
        case .between:
            guard case .list(let bounds) = c.operand, bounds.count == 2 else { return nil }
            if bounds[0].isNull || bounds[1].isNull { return "FALSE" }
            switch (dialect.comparisonParameter(bounds[0], for: type), dialect.comparisonParameter(bounds[1], for: type)) {
            case (.fallback, _), (_, .fallback): return nil
            case (.sql(let low), .sql(let high)):
                // In a WHERE clause the upper bound rejects NaN and NULL counts as false.
                if inWhere { return "(\(lhs) BETWEEN \(bind(low)) AND \(bind(high)))" }
                return "(\(lhs) >= \(bind(low)) AND \(lhs) <= \(bind(high))\(guardNaN)\(notNull))"
            default: return "FALSE"
            }
        case .beginsWith, .endsWith, .contains, .like, .matches:
            return nil
        }
    }

    /// The number of destinations of `relationship` on the row `owner` (0 for a missing owner).
    package mutating func countExpression(_ relationship: SQLSchemaMapping.RelationshipMapping, owner: String) -> String {
        let x = newAlias()
        switch relationship.storage {
        case .foreignKey(let column):
            return "(CASE WHEN \(owner).\(column.sqlIdentifier) IS NULL THEN 0 ELSE 1 END)"
        case .inverseForeignKey(let column, _):
            return "(SELECT count(*) FROM \(relationship.destinationTable.sqlIdentifier) \(x) WHERE \(x).\(column.sqlIdentifier) = \(owner).\"_key\")"
        case .joinTable(let table):
            return "(SELECT count(*) FROM \(table.sqlIdentifier) \(x) WHERE \(x).\"source\" = \(owner).\"_key\")"
        }
    }

    /// A 0/1 test of a relationship against nil or objects (see `PredicateEvaluator`).
    private mutating func relationshipTest(_ relationship: SQLSchemaMapping.RelationshipMapping, owner: String, _ c: Comparison) throws -> String {
        let x = newAlias()
        let destinationKey: String
        let exists: String
        switch relationship.storage {
        case .foreignKey(let column):
            let key = "\(owner).\(column.sqlIdentifier)"
            switch (c.op, c.operand) {
            case (.equal, .value(.null)): return "(\(key) IS NULL)"
            case (.notEqual, .value(.null)): return "(\(key) IS NOT NULL)"
            case (.equal, .records(let ids)): return ids.count == 1 ? "(" + dialect.isSame(key, bind(.integer(ids[0].key))) + ")" : "FALSE"
            case (.notEqual, .records(let ids)): return ids.count == 1 ? "(NOT " + dialect.isSame(key, bind(.integer(ids[0].key))) + ")" : "TRUE"
            case (.in, .records(let ids)):
                return ids.isEmpty ? "FALSE" : "coalesce(\(key) IN \(inList(ids.map { .integer($0.key) })), FALSE)"
            case (.in, .list(let values)) where values.isEmpty:
                return "FALSE"
            default:
                throw Self.relationshipOperatorError(c)
            }
        case .inverseForeignKey(let column, _):
            destinationKey = "\(x).\"_key\""
            exists = "SELECT 1 FROM \(relationship.destinationTable.sqlIdentifier) \(x) WHERE \(x).\(column.sqlIdentifier) = \(owner).\"_key\""
        case .joinTable(let table):
            destinationKey = "\(x).\"destination\""
            exists = "SELECT 1 FROM \(table.sqlIdentifier) \(x) WHERE \(x).\"source\" = \(owner).\"_key\""
        }
        switch (c.op, c.operand) {
        case (.equal, .value(.null)): return "(NOT EXISTS (\(exists)))"
        case (.notEqual, .value(.null)): return "EXISTS (\(exists))"
        case (.equal, .records(let ids)):
            return ids.count == 1 ? "EXISTS (\(exists) AND \(destinationKey) = \(bind(.integer(ids[0].key))))" : "FALSE"
        case (.notEqual, .records(let ids)):
            return ids.count == 1 ? "(NOT EXISTS (\(exists) AND \(destinationKey) = \(bind(.integer(ids[0].key)))))" : "TRUE"
        case (.in, .records(let ids)):
            return ids.isEmpty ? "FALSE" : "EXISTS (\(exists) AND \(destinationKey) IN \(inList(ids.map { .integer($0.key) })))"
        case (.in, .list(let values)) where values.isEmpty:
            return "FALSE"
        default:
            throw Self.relationshipOperatorError(c)
        }
    }

    private static func relationshipOperatorError(_ c: Comparison) -> StorageError {
        .invalidRequest("relationship '\(c.keyPath.joined(separator: "."))' can only be compared with objects or nil using ==, != or IN")
    }
}
