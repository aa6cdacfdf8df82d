import CoreStoreStorage

/// Turns an NSPredicate-style format string and its arguments into a ``RecordPredicate``.
///
/// ## Grammar
/// ```
/// format      := or END
/// or          := and (("OR" | "||") and)*
/// and         := not (("AND" | "&&") not)*
/// not         := ("NOT" | "!") not | primary
/// primary     := "(" or ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
/// comparison  := [ANY | SOME | ALL | NONE] operand operator [modifier] operand
/// operand     := keyPath | constant
/// keyPath     := (key | %K) ("." (key | %K))* ["." "@count"]
/// constant    := string | number | TRUE | YES | FALSE | NO | NIL | NULL
///              | %@ | %d | %i | %ld | %lld | %u | %lu | %f | %lf | %s | "{" [constant ("," constant)*] "}"
/// operator    := == | = | != | <> | < | <= | =< | > | >= | =>
///              | BETWEEN | IN | BEGINSWITH | ENDSWITH | CONTAINS | LIKE | MATCHES
/// modifier    := "[c]" | "[d]" | "[cd]"
/// ```
/// Keywords are case-insensitive; `#word` uses a keyword as a key. `NOT` binds tighter than
/// `AND`, which binds tighter than `OR`. Exactly one side of a comparison is a key path; with
/// the constant on the left the comparison is mirrored (`30 < age` is `age > 30`, and
/// `'Rex' IN pets.name` is `ANY pets.name == 'Rex'`). An object or `ObjectID` constant compares
/// a relationship (`master == %@`, `master IN %@`, `pets CONTAINS %@`).
///
/// Keys are not checked here: the fetch checks them against the entity it reads.
struct PredicateFormatParser {
    /// How deeply parentheses and `NOT`s may nest; deeper formats are rejected rather than
    /// risking the stack.
    static let maximumNesting = 48

    let tokens: [PredicateFormatToken]
    let arguments: [Any?]
    var index = 0
    private var nesting = 0

    private init(tokens: [PredicateFormatToken], arguments: [Any?]) {
        self.tokens = tokens
        self.arguments = arguments
    }

    /// Parses `format`, substituting `arguments` for its specifiers in order.
    static func parse(_ format: String, arguments: [Any?]) throws(PredicateFormatError) -> RecordPredicate {
        let tokens = try PredicateFormatLexer.tokens(of: format)
        try checkArgumentCount(tokens, given: arguments.count)
        var parser = PredicateFormatParser(tokens: tokens, arguments: arguments)
        return try parser.parseFormat()
    }

    /// Rejects a format whose specifiers do not match the number of arguments.
    private static func checkArgumentCount(_ tokens: [PredicateFormatToken], given: Int) throws(PredicateFormatError) {
        let placeholders = tokens.compactMap { token -> (FormatPlaceholder, Int)? in
            if case .placeholder(let placeholder) = token.kind { return (placeholder, token.offset) }
            return nil
        }
        guard placeholders.count != given else { return }
        let uses = placeholders.count == 1 ? "1 argument" : "\(placeholders.count) arguments"
        let was = given == 1 ? "1 was given" : "\(given) were given"
        let problem = "Wrong number of arguments: the format uses \(uses) but \(was)"
        if placeholders.count > given {
            let (first, offset) = placeholders[given]
            throw PredicateFormatError("\(problem); the first specifier without one is '\(first.spelling)'", at: offset)
        }
        throw PredicateFormatError(problem, at: nil)
    }

    // MARK: Tokens

    var current: PredicateFormatToken { tokens[min(index, tokens.count - 1)] }

    var previous: PredicateFormatToken? { index > 0 ? tokens[min(index - 1, tokens.count - 1)] : nil }

    @discardableResult
    mutating func advance() -> PredicateFormatToken {
        let token = current
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    /// `'text'` of the previous token, for "after …" messages.
    var afterPrevious: String {
        previous.map { " after '\($0.text)'" } ?? ""
    }

    // MARK: Logic

    private mutating func parseFormat() throws(PredicateFormatError) -> RecordPredicate {
        if current.kind == .end {
            throw PredicateFormatError("The format is empty; write TRUEPREDICATE to keep everything", at: nil)
        }
        let predicate = try parseOr()
        switch current.kind {
        case .end:
            return predicate
        case .symbol(.closeParenthesis):
            throw PredicateFormatError("Unmatched ')'", at: current.offset)
        default:
            throw PredicateFormatError("Expected AND, OR or the end of the format, but found '\(current.text)'", at: current.offset)
        }
    }

    private mutating func parseOr() throws(PredicateFormatError) -> RecordPredicate {
        var result = try parseAnd()
        while current.kind == .symbol(.or) || isKeyword(current, .or) {
            advance()
            result = result || (try parseAnd())
        }
        return result
    }

    private mutating func parseAnd() throws(PredicateFormatError) -> RecordPredicate {
        var result = try parseNot()
        while current.kind == .symbol(.and) || isKeyword(current, .and) {
            advance()
            result = result && (try parseNot())
        }
        return result
    }

    private mutating func parseNot() throws(PredicateFormatError) -> RecordPredicate {
        guard current.kind == .symbol(.not) || isKeyword(current, .not) else { return try parsePrimary() }
        try enterNesting()
        defer { nesting -= 1 }
        advance()
        return !(try parseNot())
    }

    private mutating func parsePrimary() throws(PredicateFormatError) -> RecordPredicate {
        if current.kind == .symbol(.openParenthesis) {
            try enterNesting()
            defer { nesting -= 1 }
            let open = advance()
            let inner = try parseOr()
            guard current.kind == .symbol(.closeParenthesis) else {
                throw PredicateFormatError("Expected ')' to close the '(' at position \(open.offset + 1), but found \(describeCurrent)", at: current.offset)
            }
            advance()
            return inner
        }
        if isKeyword(current, .truePredicate) {
            advance()
            return .constant(true)
        }
        if isKeyword(current, .falsePredicate) {
            advance()
            return .constant(false)
        }
        return try parseComparison()
    }

    private mutating func enterNesting() throws(PredicateFormatError) {
        guard nesting < Self.maximumNesting else {
            throw PredicateFormatError("The format nests parentheses and NOTs more than \(Self.maximumNesting) levels deep", at: current.offset)
        }
        nesting += 1
    }

    /// `'word'`, or `the end of the format`.
    var describeCurrent: String {
        current.kind == .end ? "the end of the format" : "'\(current.text)'"
    }

    // MARK: Keywords

    /// The reserved words of the grammar (matched case-insensitively).
    enum Keyword: String, CaseIterable {
        case and, or, not
        case between, `in`, beginsWith = "beginswith", endsWith = "endswith", contains, like, matches
        case anyQuantifier = "any", someQuantifier = "some", allQuantifier = "all", noneQuantifier = "none"
        case truePredicate = "truepredicate", falsePredicate = "falsepredicate"
        case `true`, `false`, yes, no, `nil`, null
    }

    func keyword(_ token: PredicateFormatToken) -> Keyword? {
        guard case .word(let word) = token.kind else { return nil }
        return Keyword(rawValue: word.lowercased())
    }

    func isKeyword(_ token: PredicateFormatToken, _ keyword: Keyword) -> Bool {
        self.keyword(token) == keyword
    }
}
