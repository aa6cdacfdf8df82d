/// A format specifier such as `%@` or `%ld`, with the argument it consumes.
struct FormatPlaceholder: Equatable {
    /// What kind of argument the specifier expects.
    enum Kind: Equatable {
        /// `%K`: a key path string.
        case keyPath
        /// `%@`: any value, object, `ObjectID` or collection.
        case object
        /// `%d %i %ld %li %lld %lli`: a signed integer.
        case signedInteger
        /// `%u %lu %llu`: a non-negative integer.
        case unsignedInteger
        /// `%f %lf`: a number, stored as a double.
        case floatingPoint
        /// `%s`: a string.
        case string
    }

    /// The expected argument.
    let kind: Kind
    /// The specifier as written, e.g. `%lld`.
    let spelling: String
    /// The 0-based index of the argument this specifier consumes.
    let argumentIndex: Int
}

/// Operators and punctuation of the format grammar.
enum PredicateFormatSymbol: Equatable {
    case openParenthesis, closeParenthesis, openBrace, closeBrace, comma, dot
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case and, or, not
}

/// One lexical unit of a predicate format string, with where it starts.
struct PredicateFormatToken: Equatable {
    /// The token's category and payload.
    enum Kind: Equatable {
        /// A bare word: a key or a keyword (keywords are recognized case-insensitively by the parser).
        case word(String)
        /// `#word`: always a key, even when it is spelled like a keyword.
        case escapedWord(String)
        /// `@name`, such as `@count`; holds the name without `@`.
        case function(String)
        /// A quoted string, escapes resolved.
        case string(String)
        /// An integer literal (`42`, `-7`).
        case integer(Int64)
        /// A literal with a fraction or an exponent (`2.5`, `1e3`).
        case decimal(Double)
        /// A format specifier.
        case placeholder(FormatPlaceholder)
        /// `%%` outside quotes.
        case percentSign
        /// `[cd]` after an operator; holds the letters between the brackets.
        case modifier(String)
        /// An operator or punctuation.
        case symbol(PredicateFormatSymbol)
        /// The end of the format.
        case end
    }

    /// The category and payload.
    let kind: Kind
    /// The 0-based character offset of the token's first character.
    let offset: Int
    /// The token as written (for messages).
    let text: String
}

/// Splits a predicate format string into tokens.
///
/// Positions are character offsets (not UTF-8 offsets), so a message's position matches what
/// the user sees. Inside quotes everything is literal except backslash escapes
/// (`\\ \' \" \n \t \r \0 \uXXXX \u{X…}`; any other backslash pair is kept as written, so
/// regular expressions such as `'\d+'` survive) and `%%`, which stands for one `%`. In
/// particular `'%@'` is the two characters `%@`, not a substitution.
struct PredicateFormatLexer {
    private let characters: [Character]
    private var position = 0
    private var nextArgumentIndex = 0

    /// Prepares to tokenize `format`.
    init(_ format: String) {
        self.characters = Array(format)
    }

    /// All tokens of the format, ending with a `.end` token.
    static func tokens(of format: String) throws(PredicateFormatError) -> [PredicateFormatToken] {
        var lexer = PredicateFormatLexer(format)
        var tokens: [PredicateFormatToken] = []
        while true {
            let token = try lexer.nextToken()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ ahead: Int = 0) -> Character? {
        let index = position + ahead
        return index < characters.count ? characters[index] : nil
    }

    private func text(from start: Int) -> String {
        String(characters[start..<position])
    }

    private static func isWordStart(_ c: Character) -> Bool { c.isLetter || c == "_" }
    private static func isWordPart(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }
    private static func isDigit(_ c: Character?) -> Bool { c.map { $0.isASCII && $0.isNumber } ?? false }

    private mutating func nextToken() throws(PredicateFormatError) -> PredicateFormatToken {
        while let c = peek(), c.isWhitespace { position += 1 }
        let start = position
        guard let c = peek() else { return PredicateFormatToken(kind: .end, offset: start, text: "") }

        if Self.isWordStart(c) {
            return PredicateFormatToken(kind: .word(readWord()), offset: start, text: text(from: start))
        }
        if Self.isDigit(c) || (c == "-" && Self.isDigit(peek(1))) {
            return try readNumber(start: start)
        }
        switch c {
        case "'", "\"":
            let value = try readString(quote: c)
            return PredicateFormatToken(kind: .string(value), offset: start, text: text(from: start))
        case "%":
            return try readPercent(start: start)
        case "#":
            position += 1
            guard let next = peek(), Self.isWordStart(next) else {
                throw PredicateFormatError("Expected a key name after '#'", at: start)
            }
            return PredicateFormatToken(kind: .escapedWord(readWord()), offset: start, text: text(from: start))
        case "@":
            position += 1
            guard let next = peek(), Self.isWordStart(next) else {
                throw PredicateFormatError("Expected a function name such as '@count' after '@'", at: start)
            }
            return PredicateFormatToken(kind: .function(readWord()), offset: start, text: text(from: start))
        case "[":
            return try readModifier(start: start)
        case "$":
            throw PredicateFormatError("Substitution variables ('$name') are not supported; use a format specifier such as %@", at: start)
        default:
            return try readSymbol(start: start)
        }
    }

    private mutating func readWord() -> String {
        let start = position
        while let c = peek(), Self.isWordPart(c) { position += 1 }
        return text(from: start)
    }

    private mutating func readNumber(start: Int) throws(PredicateFormatError) -> PredicateFormatToken {
        if peek() == "-" { position += 1 }
        while Self.isDigit(peek()) { position += 1 }
        var isDecimal = false
        if peek() == ".", Self.isDigit(peek(1)) {
            isDecimal = true
            position += 1
            while Self.isDigit(peek()) { position += 1 }
        }
        if peek() == "e" || peek() == "E" {
            let signLength = (peek(1) == "+" || peek(1) == "-") ? 1 : 0
            if Self.isDigit(peek(1 + signLength)) {
                isDecimal = true
                position += 1 + signLength
                while Self.isDigit(peek()) { position += 1 }
            }
        }
        if let next = peek(), Self.isWordPart(next) || next == "." && Self.isDigit(peek(1)) {
            while let c = peek(), Self.isWordPart(c) || c == "." { position += 1 }
            throw PredicateFormatError("'\(text(from: start))' is not a valid number", at: start)
        }
        let literal = text(from: start)
        if isDecimal {
            guard let value = Double(literal), value.isFinite else {
                throw PredicateFormatError("'\(literal)' is not a valid number", at: start)
            }
            return PredicateFormatToken(kind: .decimal(value), offset: start, text: literal)
        }
        guard let value = Int64(literal) else {
            throw PredicateFormatError("The integer \(literal) does not fit in 64 bits", at: start)
        }
        return PredicateFormatToken(kind: .integer(value), offset: start, text: literal)
    }

    private mutating func readString(quote: Character) throws(PredicateFormatError) -> String {
        let start = position
        position += 1
        var value = ""
        while let c = peek() {
            position += 1
            switch c {
            case quote:
                return value
            case "\\":
                value += try readEscape(backslashAt: position - 1)
            case "%" where peek() == "%":
                position += 1
                value.append("%")
            default:
                value.append(c)
            }
        }
        throw PredicateFormatError("The string starting with \(quote) is not closed", at: start)
    }

    /// Resolves the escape after a backslash (already consumed) inside a quoted string.
    private mutating func readEscape(backslashAt backslash: Int) throws(PredicateFormatError) -> String {
        guard let c = peek() else {
            throw PredicateFormatError("The format ends inside an escape sequence", at: backslash)
        }
        position += 1
        switch c {
        case "\\", "'", "\"": return String(c)
        case "n": return "\n"
        case "t": return "\t"
        case "r": return "\r"
        case "0": return "\0"
        case "u": return try readUnicodeEscape(backslashAt: backslash)
        default: return "\\" + String(c)
        }
    }

    /// `\uXXXX` or `\u{X…}` (1 to 8 hex digits) after `\u` (already consumed).
    private mutating func readUnicodeEscape(backslashAt backslash: Int) throws(PredicateFormatError) -> String {
        var hex = ""
        if peek() == "{" {
            position += 1
            while let c = peek(), c != "}", hex.count <= 8 {
                hex.append(c)
                position += 1
            }
            guard peek() == "}", (1...8).contains(hex.count) else {
                throw PredicateFormatError("Invalid unicode escape; write \\u{1F600} or \\u00E9", at: backslash)
            }
            position += 1
        } else {
            for _ in 0..<4 {
                guard let c = peek() else { break }
                hex.append(c)
                position += 1
            }
        }
        guard hex.count >= 1, hex.allSatisfy(\.isHexDigit), let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
            throw PredicateFormatError("Invalid unicode escape; write \\u{1F600} or \\u00E9", at: backslash)
        }
        return String(Character(scalar))
    }

    private mutating func readPercent(start: Int) throws(PredicateFormatError) -> PredicateFormatToken {
        position += 1
        var length = ""
        while length.count < 2, peek() == "l" {
            length.append("l")
            position += 1
        }
        guard let conversion = peek() else {
            throw PredicateFormatError("The format ends after '%'; write %@, %K, %d, %f, %s or %%", at: start)
        }
        position += 1
        let spelling = text(from: start)
        let kind: FormatPlaceholder.Kind
        switch (length, conversion) {
        case ("", "%"):
            return PredicateFormatToken(kind: .percentSign, offset: start, text: spelling)
        case ("", "K"): kind = .keyPath
        case ("", "@"): kind = .object
        case (_, "d"), (_, "i"): kind = .signedInteger
        case (_, "u"): kind = .unsignedInteger
        case ("", "f"), ("l", "f"): kind = .floatingPoint
        case ("", "s"): kind = .string
        default:
            throw PredicateFormatError("Unsupported format specifier '\(spelling)'; use %@, %K, %d, %i, %ld, %lld, %u, %lu, %f, %lf, %s or %%", at: start)
        }
        defer { nextArgumentIndex += 1 }
        let placeholder = FormatPlaceholder(kind: kind, spelling: spelling, argumentIndex: nextArgumentIndex)
        return PredicateFormatToken(kind: .placeholder(placeholder), offset: start, text: spelling)
    }

    private mutating func readModifier(start: Int) throws(PredicateFormatError) -> PredicateFormatToken {
        position += 1
        var letters = ""
        while let c = peek(), c.isLetter {
            letters.append(c)
            position += 1
        }
        guard peek() == "]" else {
            throw PredicateFormatError("Expected a modifier such as [c], [d] or [cd]", at: start)
        }
        position += 1
        return PredicateFormatToken(kind: .modifier(letters), offset: start, text: text(from: start))
    }

    private mutating func readSymbol(start: Int) throws(PredicateFormatError) -> PredicateFormatToken {
        let first = peek()
        let second = peek(1)
        let symbol: PredicateFormatSymbol
        var length = 1
        switch (first, second) {
        case ("=", "="): symbol = .equal; length = 2
        case ("=", "<"): symbol = .lessOrEqual; length = 2
        case ("=", ">"): symbol = .greaterOrEqual; length = 2
        case ("=", _): symbol = .equal
        case ("!", "="): symbol = .notEqual; length = 2
        case ("!", _): symbol = .not
        case ("<", ">"): symbol = .notEqual; length = 2
        case ("<", "="): symbol = .lessOrEqual; length = 2
        case ("<", _): symbol = .less
        case (">", "="): symbol = .greaterOrEqual; length = 2
        case (">", _): symbol = .greater
        case ("&", "&"): symbol = .and; length = 2
        case ("|", "|"): symbol = .or; length = 2
        case ("(", _): symbol = .openParenthesis
        case (")", _): symbol = .closeParenthesis
        case ("{", _): symbol = .openBrace
        case ("}", _): symbol = .closeBrace
        case (",", _): symbol = .comma
        case (".", _): symbol = .dot
        default:
            let shown = first.map(String.init) ?? ""
            throw PredicateFormatError("Unexpected character '\(shown)'", at: start)
        }
        position += length
        return PredicateFormatToken(kind: .symbol(symbol), offset: start, text: text(from: start))
    }
}
