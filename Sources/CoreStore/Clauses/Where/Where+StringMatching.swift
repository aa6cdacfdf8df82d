import CoreStoreStorage

/// A stored field type that holds text: `String` or `String?`.
public protocol FieldStringType: FieldStorableType {}

extension String: FieldStringType {}
extension Optional: FieldStringType where Wrapped == String {}

/// String matching, with optional case and diacritic folding:
///
/// ```swift
/// From<Person>().where(Where(\.$name, contains: "an"))
/// From<Person>().where(Where(\.$name, hasPrefix: "é", options: [.caseInsensitive, .diacriticInsensitive]))
/// From<Person>().where(Where(\.$name, hasSuffix: "son"))
/// From<Person>().where(Where(\.$name, like: "J?n*"))      // * any run, ? one character
/// From<Person>().where(Where(\.$name, matches: "[A-Z][a-z]+"))  // the whole string, ICU syntax
/// From<Dog>().where(Where(\.$master ~ \.$name, hasPrefix: "A"))
/// From<Person>().where(Where((\.$pets ~ \.$name).any(), contains: "ex"))
/// ```
/// Without options, strings compare by their exact UTF-8 bytes. `.caseInsensitive` applies
/// Unicode case folding and `.diacriticInsensitive` removes diacritics, on both sides. `nil`
/// never matches. `like:` without wildcards is equality, so
/// `Where(\.$name, like: "ann", options: .caseInsensitive)` is a case-insensitive `==`.
extension Where {
    /// Objects whose text contains `substring` (`CONTAINS`); an empty substring matches any text.
    public init<V: FieldStringType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, contains substring: String, options: StringComparisonOptions = []) {
        self = Expression(keyPath).comparison(.contains, .value(.string(substring)), options: options)
    }

    /// Objects whose text starts with `prefix` (`BEGINSWITH`).
    public init<V: FieldStringType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, hasPrefix prefix: String, options: StringComparisonOptions = []) {
        self = Expression(keyPath).comparison(.beginsWith, .value(.string(prefix)), options: options)
    }

    /// Objects whose text ends with `suffix` (`ENDSWITH`).
    public init<V: FieldStringType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, hasSuffix suffix: String, options: StringComparisonOptions = []) {
        self = Expression(keyPath).comparison(.endsWith, .value(.string(suffix)), options: options)
    }

    /// Objects whose text matches a wildcard pattern (`LIKE`): `*` matches any run of
    /// characters, `?` exactly one.
    public init<V: FieldStringType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, like pattern: String, options: StringComparisonOptions = []) {
        self = Expression(keyPath).comparison(.like, .value(.string(pattern)), options: options)
    }

    /// Objects whose whole text matches an ICU regular expression (`MATCHES`). An invalid
    /// expression makes the fetch throw.
    public init<V: FieldStringType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, matches regularExpression: String, options: StringComparisonOptions = []) {
        self = Expression(keyPath).comparison(.matches, .value(.string(regularExpression)), options: options)
    }

    /// `contains:` on a single-valued path through relationships.
    public init<V: FieldStringType>(_ expression: Expression<WhereTarget.Single, V>, contains substring: String, options: StringComparisonOptions = []) {
        self = expression.comparison(.contains, .value(.string(substring)), options: options)
    }

    /// `hasPrefix:` on a single-valued path through relationships.
    public init<V: FieldStringType>(_ expression: Expression<WhereTarget.Single, V>, hasPrefix prefix: String, options: StringComparisonOptions = []) {
        self = expression.comparison(.beginsWith, .value(.string(prefix)), options: options)
    }

    /// `hasSuffix:` on a single-valued path through relationships.
    public init<V: FieldStringType>(_ expression: Expression<WhereTarget.Single, V>, hasSuffix suffix: String, options: StringComparisonOptions = []) {
        self = expression.comparison(.endsWith, .value(.string(suffix)), options: options)
    }

    /// `like:` on a single-valued path through relationships.
    public init<V: FieldStringType>(_ expression: Expression<WhereTarget.Single, V>, like pattern: String, options: StringComparisonOptions = []) {
        self = expression.comparison(.like, .value(.string(pattern)), options: options)
    }

    /// `matches:` on a single-valued path through relationships.
    public init<V: FieldStringType>(_ expression: Expression<WhereTarget.Single, V>, matches regularExpression: String, options: StringComparisonOptions = []) {
        self = expression.comparison(.matches, .value(.string(regularExpression)), options: options)
    }
}
