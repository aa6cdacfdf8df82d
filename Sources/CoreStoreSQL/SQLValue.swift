import Foundation

/// A value as an SQL database binds and returns it: null, a 64-bit integer, a double, a text or
/// bytes. Each backend's ``SQLDialect`` decides how an attribute value becomes one.
package enum SQLValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// Whether the two values are the same kind and the same bits (unlike `==`, which takes
    /// `-0.0` for `0.0`).
    package func isIdentical(to other: SQLValue) -> Bool {
        switch (self, other) {
        case (.real(let a), .real(let b)): return a.bitPattern == b.bitPattern
        default: return self == other
        }
    }
}

extension String {
    /// The string as an SQL identifier in double quotes (the standard form, which SQLite and
    /// PostgreSQL share).
    ///
    /// Identifiers rarely contain a quote, so that case skips Foundation's (slow) replacement.
    package var sqlIdentifier: String {
        guard utf8.contains(UInt8(ascii: "\"")) else { return "\"" + self + "\"" }
        return "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The string as an SQL string literal (for entity names in DDL and filters).
    ///
    /// Names rarely contain a quote, so that case skips Foundation's (slow) replacement.
    package var sqlLiteral: String {
        guard utf8.contains(UInt8(ascii: "'")) else { return "'" + self + "'" }
        return "'" + replacingOccurrences(of: "'", with: "''") + "'"
    }
}
