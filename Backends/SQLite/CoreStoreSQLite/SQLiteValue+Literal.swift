import Foundation
import CoreStoreSQL

extension SQLValue {
    /// The value as an SQL literal for a column's `DEFAULT` (`ALTER TABLE … ADD COLUMN` accepts
    /// literals only), `nil` when it has none that is sure to parse: a non-finite real, or a
    /// text with a NUL character. What SQLite makes of a literal is still checked by reading it
    /// back (it may, for example, store `-0.0` as the integer `0`).
    var sqlLiteral: String? {
        switch self {
        case .null: return "NULL"
        case .integer(let i): return i == .min ? nil : String(i)
        case .real(let d): return d.isFinite ? "\(d)" : nil
        case .text(let s): return s.utf8.contains(0) ? nil : s.sqlLiteral
        case .blob(let data): return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}
