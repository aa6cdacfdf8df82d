/// Why a predicate format string could not be turned into a predicate, and where.
///
/// The lexer and parser throw this; the public `Where` initializers turn it into
/// `CoreStoreError.invalidPredicate` with ``message(in:)``, which names the problem, its
/// position and the whole format, e.g.
/// `Expected a value after '>' at position 7 in "age > AND x"`.
struct PredicateFormatError: Error, Equatable {
    /// What is wrong, as a sentence fragment without the position.
    let problem: String
    /// The 0-based character offset of the offending text, or `nil` when the problem concerns
    /// the format as a whole (too many arguments, say).
    let offset: Int?

    init(_ problem: String, at offset: Int?) {
        self.problem = problem
        self.offset = offset
    }

    /// The full message for `format`. Positions count characters from 1, so the position of
    /// the end of the format is its length plus one.
    func message(in format: String) -> String {
        var message = problem
        if let offset { message += " at position \(offset + 1)" }
        message += " in \"\(format)\""
        return message
    }
}
