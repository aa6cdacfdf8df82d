import Foundation

extension SQLiteQueryBuilder {
    /// Lists longer than this are bound as one JSON array when they can be.
    static let jsonListThreshold = 500

    /// The right-hand side of an `IN` over `members` (non-NULL parameters, at least one):
    /// `(?1, ?2, …)`, or for a long list `(SELECT value FROM json_each(?n))` with the whole list
    /// bound as one JSON array text.
    ///
    /// SQLite caps the parameters of one statement (`SQLITE_MAX_VARIABLE_NUMBER`: 32,766 by
    /// default since 3.32, less in older or other builds), so a list of thousands of members
    /// cannot be bound one by one. `json_each` yields every integer as an INTEGER and every
    /// string as the same TEXT, and neither the subquery's values nor the list's parameters
    /// have an affinity, so the column's affinity and collation apply to both alike: the
    /// result is the same, and SQLite still probes the column's index once per member. Only
    /// lists of integers and NUL-free texts qualify (reals would go through decimal text, blobs
    /// have no JSON form); others keep one parameter per member.
    mutating func inList(_ members: [SQLiteValue]) -> String {
        if members.count > Self.jsonListThreshold, let json = SQLiteJSONArray.encode(members) {
            return "(SELECT value FROM json_each(\(bind(.text(json)))))"
        }
        return "(" + members.map { bind($0) }.joined(separator: ", ") + ")"
    }
}

/// The JSON array text of a list of integers and strings, as `json_each` reads it back.
enum SQLiteJSONArray {
    /// The array of `members`; `nil` when a member is not an integer or a NUL-free text.
    static func encode(_ members: [SQLiteValue]) -> String? {
        var json = "["
        json.reserveCapacity(members.count * 12)
        for (i, member) in members.enumerated() {
            if i > 0 { json += "," }
            switch member {
            case .integer(let value):
                json += String(value)
            case .text(let text):
                guard appendString(text, to: &json) else { return nil }
            case .null, .real, .blob:
                return nil
            }
        }
        json += "]"
        return json
    }

    /// Appends `text` as a JSON string literal: `"` and `\` escaped, control characters as
    /// `\u00XX`, everything else as its UTF-8. Returns `false` for a text with NUL, which
    /// SQLite's JSON functions do not carry through.
    private static func appendString(_ text: String, to json: inout String) -> Bool {
        json += "\""
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            // Nothing to escape (the common case).
            json += text
            json += "\""
            return true
        }
        var run = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0:
                return false
            case 0x22:
                run += "\\\""
            case 0x5C:
                run += "\\\\"
            case 0x01..<0x20:
                let hex = String(scalar.value, radix: 16)
                run += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                run.unicodeScalars.append(scalar)
            }
        }
        json += run
        json += "\""
        return true
    }
}
