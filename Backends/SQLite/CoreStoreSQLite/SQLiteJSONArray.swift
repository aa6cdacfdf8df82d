import Foundation
import CoreStoreSQL

/// The JSON array text of a list of integers and strings, as `json_each` reads it back.
enum SQLiteJSONArray {
    /// The array of `members`; `nil` when a member is not an integer or a NUL-free text.
    static func encode(_ members: [SQLValue]) -> String? {
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
