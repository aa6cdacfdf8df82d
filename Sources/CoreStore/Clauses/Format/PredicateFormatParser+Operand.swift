import CoreStoreStorage

/// A key path as written in a format: its keys and an optional trailing function.
struct FormatKeyPath: Equatable {
    /// One key per relationship hop.
    var components: [String]
    /// `@count`, when the path ends with it.
    var function: KeyPathFunction?

    /// `master.name`, `pets.@count`.
    var text: String {
        (components + (function.map { [$0.rawValue] } ?? [])).joined(separator: ".")
    }

    /// Splits a key path string such as `master.name` or `pets.@count` (from `%K` or the
    /// `Where(_:isEqualTo:)` initializers); `nil` describes why it is not a key path.
    static func parse(_ string: String) -> Result<FormatKeyPath, FormatArgumentMismatch> {
        var keyPath = FormatKeyPath(components: [], function: nil)
        let parts = string.split(separator: ".", omittingEmptySubsequences: false)
        for (position, part) in parts.enumerated() {
            let isLast = position == parts.count - 1
            if part.isEmpty || part.contains(where: \.isWhitespace) {
                return .failure(FormatArgumentMismatch(reason: "must be a key path such as 'name' or 'master.name', but it is \"\(string)\""))
            }
            if part.first == "@" {
                guard part.dropFirst().lowercased() == "count", isLast, !keyPath.components.isEmpty else {
                    return .failure(FormatArgumentMismatch(reason: "may only end with '@count' after a relationship, as in 'pets.@count', but it is \"\(string)\""))
                }
                keyPath.function = .count
            } else {
                keyPath.components.append(String(part))
            }
        }
        return .success(keyPath)
    }
}

/// One side of a comparison and where it starts.
struct FormatOperand {
    /// A key path or a constant.
    enum Kind {
        case keyPath(FormatKeyPath)
        case constant(FormatConstant)
    }

    var kind: Kind
    /// The 0-based character offset of the operand's first token.
    var offset: Int
}

extension PredicateFormatParser {
    /// Parses a key path or a constant. `expectation` completes "Expected …" when the current
    /// token starts neither, e.g. `a value after '>'`.
    mutating func parseOperand(expectation: String) throws(PredicateFormatError) -> FormatOperand {
        let token = current
        switch token.kind {
        case .word(let word):
            if let keyword = keyword(token) {
                guard let value = Self.literal(keyword) else { throw expected(expectation) }
                advance()
                return FormatOperand(kind: .constant(.value(value)), offset: token.offset)
            }
            advance()
            return try parseKeyPathRest(FormatKeyPath(components: [word], function: nil), offset: token.offset)
        case .escapedWord(let word):
            advance()
            return try parseKeyPathRest(FormatKeyPath(components: [word], function: nil), offset: token.offset)
        case .placeholder(let placeholder) where placeholder.kind == .keyPath:
            advance()
            return try parseKeyPathRest(try keyPathArgument(placeholder, at: token.offset), offset: token.offset)
        case .function:
            throw PredicateFormatError("'\(token.text)' must follow a relationship key path, as in 'pets.@count'", at: token.offset)
        case .symbol(.openBrace):
            return FormatOperand(kind: .constant(try parseList()), offset: token.offset)
        default:
            if let constant = try parseSingleConstant() {
                return FormatOperand(kind: .constant(constant), offset: token.offset)
            }
            throw expected(expectation)
        }
    }

    /// `Expected <expectation>` at the current token (the position shows what was found instead).
    func expected(_ expectation: String) -> PredicateFormatError {
        if current.kind == .percentSign {
            return PredicateFormatError("Expected \(expectation); '%%' stands for '%' only inside a quoted string", at: current.offset)
        }
        return PredicateFormatError("Expected \(expectation)", at: current.offset)
    }

    /// A literal or a non-`%K` specifier, consumed; `nil` (nothing consumed) for anything else.
    private mutating func parseSingleConstant() throws(PredicateFormatError) -> FormatConstant? {
        let token = current
        let constant: FormatConstant
        switch token.kind {
        case .string(let string): constant = .value(.string(string))
        case .integer(let integer): constant = .value(.int(integer))
        case .decimal(let double): constant = .value(.double(double))
        case .placeholder(let placeholder) where placeholder.kind != .keyPath:
            constant = try argument(placeholder, at: token.offset)
        case .word:
            guard let keyword = keyword(token), let value = Self.literal(keyword) else { return nil }
            constant = .value(value)
        default:
            return nil
        }
        advance()
        return constant
    }

    /// `TRUE`, `YES`, `FALSE`, `NO`, `NIL`, `NULL`.
    private static func literal(_ keyword: Keyword) -> Value? {
        switch keyword {
        case .true, .yes: return .bool(true)
        case .false, .no: return .bool(false)
        case .nil, .null: return .null
        default: return nil
        }
    }

    /// `{a, b, …}`, starting at `{`.
    private mutating func parseList() throws(PredicateFormatError) -> FormatConstant {
        let open = advance()
        var elements: [FormatConstant] = []
        if current.kind == .symbol(.closeBrace) {
            advance()
            return .list(elements)
        }
        while true {
            let elementToken = current
            guard let element = try parseSingleConstant() else {
                throw expected("a value in the list\(afterPrevious)")
            }
            if case .list = element {
                throw PredicateFormatError("Lists cannot be nested: '\(elementToken.text)' is a collection inside '{…}'", at: elementToken.offset)
            }
            elements.append(element)
            switch current.kind {
            case .symbol(.comma):
                advance()
            case .symbol(.closeBrace):
                advance()
                return .list(elements)
            default:
                throw expected("',' or '}' in the list that starts at position \(open.offset + 1)")
            }
        }
    }

    /// Continues a key path with `.key`, `.%K` or a final `.@count`.
    private mutating func parseKeyPathRest(_ start: FormatKeyPath, offset: Int) throws(PredicateFormatError) -> FormatOperand {
        var keyPath = start
        while current.kind == .symbol(.dot) {
            let dot = advance()
            if keyPath.function != nil {
                throw PredicateFormatError("'@count' must be the last part of a key path", at: dot.offset)
            }
            let token = current
            switch token.kind {
            case .word(let key), .escapedWord(let key):
                keyPath.components.append(key)
            case .placeholder(let placeholder) where placeholder.kind == .keyPath:
                let more = try keyPathArgument(placeholder, at: token.offset)
                keyPath.components += more.components
                keyPath.function = more.function
            case .function(let name):
                guard name.lowercased() == "count" else {
                    throw PredicateFormatError("Unknown function '\(token.text)'; only '@count' is supported", at: token.offset)
                }
                keyPath.function = .count
            default:
                throw expected("a key after '.'")
            }
            advance()
        }
        return FormatOperand(kind: .keyPath(keyPath), offset: offset)
    }

    // MARK: Arguments

    /// The argument of a `%K`, as a key path.
    private func keyPathArgument(_ placeholder: FormatPlaceholder, at offset: Int) throws(PredicateFormatError) -> FormatKeyPath {
        let parsed = convert(placeholder, at: offset) { argument throws(FormatArgumentMismatch) in
            try FormatKeyPath.parse(FormatArgument.string(argument)).get()
        }
        return try parsed.get()
    }

    /// The argument of any other specifier, as a constant.
    private func argument(_ placeholder: FormatPlaceholder, at offset: Int) throws(PredicateFormatError) -> FormatConstant {
        let converted = convert(placeholder, at: offset) { argument throws(FormatArgumentMismatch) -> FormatConstant in
            switch placeholder.kind {
            case .object: return try FormatArgument.object(argument)
            case .signedInteger: return .value(try FormatArgument.integer(argument, unsigned: false))
            case .unsignedInteger: return .value(try FormatArgument.integer(argument, unsigned: true))
            case .floatingPoint: return .value(try FormatArgument.floatingPoint(argument))
            case .string, .keyPath: return .value(.string(try FormatArgument.string(argument)))
            }
        }
        return try converted.get()
    }

    /// Runs `body` on the placeholder's argument; a mismatch names the argument, the specifier
    /// and its position.
    private func convert<T>(
        _ placeholder: FormatPlaceholder, at offset: Int, _ body: (Any?) throws(FormatArgumentMismatch) -> T
    ) -> Result<T, PredicateFormatError> {
        guard placeholder.argumentIndex < arguments.count else {
            return .failure(PredicateFormatError("'\(placeholder.spelling)' has no argument", at: offset))
        }
        do throws(FormatArgumentMismatch) {
            return .success(try body(arguments[placeholder.argumentIndex]))
        } catch {
            return .failure(PredicateFormatError("Argument \(placeholder.argumentIndex + 1) for '\(placeholder.spelling)' \(error.reason)", at: offset))
        }
    }
}
