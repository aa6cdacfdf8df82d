import Foundation
import CoreStoreStorage

extension PredicateFormatParser {
    /// `[quantifier] operand operator [modifier] operand`.
    mutating func parseComparison() throws(PredicateFormatError) -> RecordPredicate {
        var quantifier: (Quantifier, PredicateFormatToken)?
        switch keyword(current) {
        case .anyQuantifier, .someQuantifier: quantifier = (.any, current)
        case .allQuantifier: quantifier = (.all, current)
        case .noneQuantifier: quantifier = (.none, current)
        default: break
        }
        if quantifier != nil { advance() }

        let lhsExpectation = quantifier.map { "a key path after '\($0.1.text)'" } ?? (previous.map { "a comparison after '\($0.text)'" } ?? "a comparison")
        let lhs = try parseOperand(expectation: lhsExpectation)
        let operatorToken = current
        guard let op = comparisonOperator(operatorToken) else {
            if case .modifier = operatorToken.kind {
                throw PredicateFormatError("Modifiers such as '\(operatorToken.text)' go right after the operator, as in '==[c]'", at: operatorToken.offset)
            }
            throw expected("an operator such as ==, <, IN or CONTAINS\(afterPrevious)")
        }
        advance()
        let options = try parseModifier()
        let rhs = try parseOperand(expectation: "a value after '\(operatorToken.text)'")
        return try makeComparison(quantifier: quantifier, lhs: lhs, op: op, operatorToken: operatorToken, options: options, rhs: rhs)
    }

    private func comparisonOperator(_ token: PredicateFormatToken) -> ComparisonOperator? {
        switch token.kind {
        case .symbol(.equal): return .equal
        case .symbol(.notEqual): return .notEqual
        case .symbol(.less): return .less
        case .symbol(.lessOrEqual): return .lessOrEqual
        case .symbol(.greater): return .greater
        case .symbol(.greaterOrEqual): return .greaterOrEqual
        default: break
        }
        switch keyword(token) {
        case .between: return .between
        case .in: return .in
        case .beginsWith: return .beginsWith
        case .endsWith: return .endsWith
        case .contains: return .contains
        case .like: return .like
        case .matches: return .matches
        default: return nil
        }
    }

    /// `[c]`, `[d]`, `[cd]` (letters in any order and case) right after an operator.
    private mutating func parseModifier() throws(PredicateFormatError) -> StringComparisonOptions {
        guard case .modifier(let letters) = current.kind else { return [] }
        var options: StringComparisonOptions = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            default:
                throw PredicateFormatError("Unknown modifier '\(current.text)'; use [c], [d] or [cd]", at: current.offset)
            }
        }
        if options.isEmpty {
            throw PredicateFormatError("Empty modifier '[]'; use [c], [d] or [cd]", at: current.offset)
        }
        advance()
        return options
    }

    // MARK: Building

    private func makeComparison(
        quantifier: (Quantifier, PredicateFormatToken)?, lhs: FormatOperand, op: ComparisonOperator,
        operatorToken: PredicateFormatToken, options: StringComparisonOptions, rhs: FormatOperand
    ) throws(PredicateFormatError) -> RecordPredicate {
        let spelling = operatorToken.text
        switch (lhs.kind, rhs.kind) {
        case (.keyPath(let keyPath), .constant(let constant)):
            let (finalOperator, operand) = try makeOperand(op, spelling: spelling, constant, at: rhs.offset)
            return .comparison(Comparison(
                keyPath.components, finalOperator, operand, options: options,
                quantifier: quantifier?.0 ?? .any, function: keyPath.function
            ))
        case (.constant(let constant), .keyPath(let keyPath)):
            if let (_, token) = quantifier {
                throw PredicateFormatError("'\(token.text)' must be followed by a key path", at: token.offset)
            }
            let mirrored: ComparisonOperator
            switch op {
            case .equal, .notEqual: mirrored = op
            case .less: mirrored = .greater
            case .lessOrEqual: mirrored = .greaterOrEqual
            case .greater: mirrored = .less
            case .greaterOrEqual: mirrored = .lessOrEqual
            case .in:
                // `value IN keyPath`: some leaf of the key path equals the value.
                if case .list = constant {
                    throw PredicateFormatError("With a key path on the right, 'IN' needs a single value on the left, not a list", at: lhs.offset)
                }
                mirrored = .equal
            case .between, .beginsWith, .endsWith, .contains, .like, .matches:
                throw PredicateFormatError("'\(spelling)' needs the key path on its left, as in 'name \(spelling) …'", at: lhs.offset)
            }
            let (finalOperator, operand) = try makeOperand(mirrored, spelling: spelling, constant, at: lhs.offset)
            return .comparison(Comparison(keyPath.components, finalOperator, operand, options: options, quantifier: .any, function: keyPath.function))
        case (.keyPath(let left), .keyPath(let right)):
            throw PredicateFormatError(
                "Comparing two key paths ('\(left.text)' and '\(right.text)') is not supported; compare a key path with a value or a specifier such as %@",
                at: rhs.offset
            )
        case (.constant, .constant):
            throw PredicateFormatError("A comparison needs a key path on one side, but both sides of '\(spelling)' are values", at: lhs.offset)
        }
    }

    /// The operand a constant makes for `op`, and the operator to use (`CONTAINS` with an object
    /// becomes relationship equality, which means "contains" for a to-many relationship).
    private func makeOperand(
        _ op: ComparisonOperator, spelling: String, _ constant: FormatConstant, at offset: Int
    ) throws(PredicateFormatError) -> (ComparisonOperator, Operand) {
        switch op {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            switch constant {
            case .value(let value):
                return (op, .value(value))
            case .record(let id):
                guard op == .equal || op == .notEqual else {
                    throw PredicateFormatError("'\(spelling)' cannot order objects; compare a relationship with '==', '!=' or 'IN'", at: offset)
                }
                return (op, .records([id]))
            case .list:
                throw PredicateFormatError("'\(spelling)' compares with a single value, but got \(constant.summary); use IN for a list", at: offset)
            }
        case .in:
            guard case .list(let elements) = constant else {
                throw PredicateFormatError("'\(spelling)' needs a list such as {1, 2} or a collection argument, but got \(constant.summary)", at: offset)
            }
            var values: [Value] = []
            var ids: [RecordID] = []
            for element in elements {
                switch element {
                case .value(let value): values.append(value)
                case .record(let id): ids.append(id)
                case .list: break
                }
            }
            if !ids.isEmpty {
                guard values.isEmpty else {
                    throw PredicateFormatError("'\(spelling)' needs a list of values or a list of objects, not a mix of both", at: offset)
                }
                return (op, .records(ids))
            }
            return (op, .list(values))
        case .between:
            guard case .list(let elements) = constant, elements.count == 2,
                  case .value(let low) = elements[0], case .value(let high) = elements[1] else {
                throw PredicateFormatError("'\(spelling)' needs exactly two values, as in BETWEEN {1, 5}, but got \(constant.summary)", at: offset)
            }
            return (op, .list([low, high]))
        case .beginsWith, .endsWith, .contains, .like, .matches:
            if op == .contains, case .record(let id) = constant {
                return (.equal, .records([id]))
            }
            guard case .value(.string(let string)) = constant else {
                throw PredicateFormatError("'\(spelling)' needs a string, but got \(constant.summary)", at: offset)
            }
            if op == .matches, (try? NSRegularExpression(pattern: string)) == nil {
                throw PredicateFormatError("'\(string)' is not a valid regular expression", at: offset)
            }
            return (op, .value(.string(string)))
        }
    }
}
