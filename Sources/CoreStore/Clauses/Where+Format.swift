import CoreStoreStorage

/// Format strings and key-path strings, for filters that are decided at run time or ported
/// from `NSPredicate` code.
///
/// ```swift
/// Where<Person>("age > %d AND name BEGINSWITH[c] %@", 30, "j")
/// Where<Person>("%K IN %@", "mood", [Mood.happy, .grumpy])
/// Where<Dog>("master == %@", person)              // an object or ObjectID: relationship equality
/// Where<Person>("ANY pets.name LIKE 'R*' OR pets.@count > 2")
/// Where<Person>("nickname", isEqualTo: nil)
/// From<Person>().where(format: "age BETWEEN {20, 30}")
/// ```
///
/// A `Where` never throws. A malformed format, a wrong number of arguments, or an argument of
/// the wrong type makes a `Where` whose fetch, query or delete throws
/// `CoreStoreError.invalidPredicate`; the message names the problem and its position
/// (characters counted from 1), e.g. `Expected a value after '>' at position 7 in "age > AND x"`.
/// Keys are checked when the request runs, against the entity it reads.
///
/// ## Syntax
/// - Comparisons: `== = != <> < <= =< > >= =>`, `BETWEEN {low, high}` (or `BETWEEN %@` with a
///   two-element array), `IN {a, b}` / `IN %@` (an array or set), `BEGINSWITH`, `ENDSWITH`,
///   `CONTAINS`, `LIKE` (`*` any run, `?` one character), `MATCHES` (a whole-string regular
///   expression). `[c]` (case-insensitive), `[d]` (diacritic-insensitive) or `[cd]` may follow any
///   operator.
/// - Logic: `AND &&`, `OR ||`, `NOT !`, parentheses, `TRUEPREDICATE`, `FALSEPREDICATE`. `NOT`
///   binds tightest, then `AND`, then `OR`. Keywords are case-insensitive; `#name` uses a keyword
///   as a key.
/// - Key paths: `name`, `master.name`, `ANY`/`SOME`/`ALL`/`NONE pets.name …`, `pets.@count`.
///   One side of a comparison must be a key path and the other a constant: `30 < age` works (it
///   reads as `age > 30`), `age == height` does not.
/// - Constants: `'single'` or `"double"` quoted strings with backslash escapes, integers,
///   decimals (stored as doubles), `TRUE FALSE YES NO`, `NIL NULL`, `{…}` lists.
/// - Specifiers: `%@` any value, object, `ObjectID` or collection; `%K` a key path;
///   `%d %i %ld %lld %u %lu` integers; `%f %lf` numbers; `%s` strings; `%%` a literal `%` inside
///   quotes. Quoted specifiers such as `'%@'` are literal text.
extension Where {
    /// A filter from a format string; `args` fill its specifiers in order.
    ///
    /// ```swift
    /// Where<Person>("%K > %d", "age", 30)
    /// ```
    public init(_ format: String, _ args: Any?...) {
        self.init(format, argumentArray: args)
    }

    /// A filter from a format string and an array of arguments (`nil`: no arguments).
    public init(_ format: String, argumentArray: [Any?]?) {
        do throws(PredicateFormatError) {
            self.init(try PredicateFormatParser.parse(format, arguments: argumentArray ?? []))
        } catch {
            self.init(failing: .invalidPredicate(message: error.message(in: format)))
        }
    }

    /// Objects whose value at `keyPath` (such as `"name"` or `"master.name"`) equals `value`.
    ///
    /// `nil` matches `nil` (or an empty relationship); a ``CoreStoreObject`` or ``ObjectID``
    /// compares a relationship with that object.
    public init(_ keyPath: String, isEqualTo value: Any?) {
        let problem: String
        switch FormatKeyPath.parse(keyPath) {
        case .failure(let mismatch):
            problem = "The key path \(mismatch.reason)"
        case .success(let path):
            do throws(FormatArgumentMismatch) {
                let operand: Operand
                switch try FormatArgument.object(value) {
                case .value(let stored): operand = .value(stored)
                case .record(let id): operand = .records([id])
                case .list:
                    throw FormatArgumentMismatch(reason: "is a collection; use Where(_:isMemberOf:) to match any of several values")
                }
                self.init(.comparison(Comparison(path.components, .equal, operand, function: path.function)))
                return
            } catch {
                problem = "The value compared with '\(keyPath)' \(error.reason)"
            }
        }
        self.init(failing: .invalidPredicate(message: "Where(\"\(keyPath)\", isEqualTo:): \(problem)"))
    }

    /// Objects whose value at `keyPath` is one of `values` (`IN`); with objects or
    /// ``ObjectID``s, objects whose relationship holds any of them.
    public init(_ keyPath: String, isMemberOf values: some Sequence) {
        let problem: String
        switch FormatKeyPath.parse(keyPath) {
        case .failure(let mismatch):
            problem = "The key path \(mismatch.reason)"
        case .success(let path):
            do throws(FormatArgumentMismatch) {
                var stored: [Value] = []
                var ids: [RecordID] = []
                guard case .list(let elements) = try FormatArgument.object(Array(values.map { $0 as Any })) else {
                    throw FormatArgumentMismatch(reason: "is not a collection")
                }
                for element in elements {
                    switch element {
                    case .value(let value): stored.append(value)
                    case .record(let id): ids.append(id)
                    case .list: throw FormatArgumentMismatch(reason: "contains a nested collection")
                    }
                }
                if !ids.isEmpty, !stored.isEmpty {
                    throw FormatArgumentMismatch(reason: "mix values with objects; pass only values or only objects")
                }
                let operand: Operand = ids.isEmpty ? .list(stored) : .records(ids)
                self.init(.comparison(Comparison(path.components, .in, operand, function: path.function)))
                return
            } catch {
                problem = "The collection \(error.reason)"
            }
        }
        self.init(failing: .invalidPredicate(message: "Where(\"\(keyPath)\", isMemberOf:): \(problem)"))
    }
}

extension FetchChainBuilder {
    /// Adds a filter from a format string (combined with earlier ones by AND).
    public func `where`(format: String, _ args: Any?...) -> FetchChainBuilder<O> {
        appending(Where<O>(format, argumentArray: args))
    }

    /// Adds a filter from a format string and an array of arguments.
    public func `where`(format: String, argumentArray: [Any?]?) -> FetchChainBuilder<O> {
        appending(Where<O>(format, argumentArray: argumentArray))
    }
}

extension From {
    /// Starts a chain with a filter from a format string.
    public func `where`(format: String, _ args: Any?...) -> FetchChainBuilder<O> {
        self.where(Where<O>(format, argumentArray: args))
    }

    /// Starts a chain with a filter from a format string and an array of arguments.
    public func `where`(format: String, argumentArray: [Any?]?) -> FetchChainBuilder<O> {
        self.where(Where<O>(format, argumentArray: argumentArray))
    }
}

extension QueryChainBuilder {
    /// Adds a filter from a format string (combined with earlier ones by AND).
    public func `where`(format: String, _ args: Any?...) -> QueryChainBuilder<O, T> {
        `where`(Where<O>(format, argumentArray: args))
    }

    /// Adds a filter from a format string and an array of arguments.
    public func `where`(format: String, argumentArray: [Any?]?) -> QueryChainBuilder<O, T> {
        `where`(Where<O>(format, argumentArray: argumentArray))
    }
}

extension SectionMonitorChainBuilder {
    /// Adds a filter from a format string (combined with earlier ones by AND).
    public func `where`(format: String, _ args: Any?...) -> SectionMonitorChainBuilder<O> {
        `where`(Where<O>(format, argumentArray: args))
    }

    /// Adds a filter from a format string and an array of arguments.
    public func `where`(format: String, argumentArray: [Any?]?) -> SectionMonitorChainBuilder<O> {
        `where`(Where<O>(format, argumentArray: argumentArray))
    }
}
