import CoreStore
import CoreStoreStorage
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How `corestore dump` writes stored values: as JSON, and as CSV fields.
///
/// Integers and finite doubles are JSON numbers (doubles in the shortest form that reads back
/// exactly); non-finite doubles are the strings `"nan"`, `"inf"`, `"-inf"`; decimals are strings
/// (exact); bytes are Base64; dates are ISO 8601 in UTC with up to six fractional digits; UUIDs
/// and URLs are strings; `nil` is `null` (an empty CSV field).
enum DumpValueText {
    /// `value` as a JSON value.
    static func json(_ value: Value) -> String {
        switch value {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .int(let i): String(i)
        case .double(let d): d.isFinite ? "\(d)" : jsonString(d.isNaN ? "nan" : d > 0 ? "inf" : "-inf")
        case .decimal(let d): jsonString("\(d)")
        case .string(let s): jsonString(s)
        case .bytes(let b): jsonString(b.base64EncodedString())
        case .date(let d): jsonString(iso8601(d))
        case .uuid(let u): jsonString(u.uuidString)
        }
    }

    /// `value` as one CSV field, quoted when it must be (RFC 4180).
    static func csv(_ value: Value) -> String {
        let text: String
        switch value {
        case .null: return ""
        case .bool(let b): text = b ? "true" : "false"
        case .int(let i): text = String(i)
        case .double(let d): text = d.isFinite ? "\(d)" : d.isNaN ? "nan" : d > 0 ? "inf" : "-inf"
        case .decimal(let d): text = "\(d)"
        case .string(let s): text = s
        case .bytes(let b): text = b.base64EncodedString()
        case .date(let d): text = iso8601(d)
        case .uuid(let u): text = u.uuidString
        }
        return csvField(text)
    }

    /// `text` as a CSV field: in double quotes (with quotes doubled) when it holds a comma, a
    /// quote or a line break, or is empty (so that it differs from `nil`).
    static func csvField(_ text: String) -> String {
        guard text.isEmpty || text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` as a JSON string literal (RFC 8259 escapes).
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// `date` as `2026-11-27T05:41:12.123456Z` (trailing fractional zeros dropped).
    static func iso8601(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 1e15 else { return seconds.isNaN ? "nan" : seconds > 0 ? "inf" : "-inf" }
        let whole = seconds.rounded(.down)
        var micros = Int(((seconds - whole) * 1_000_000).rounded())
        var wholeSeconds = whole
        if micros == 1_000_000 { micros = 0; wholeSeconds += 1 }
        var time = time_t(wholeSeconds)
        var fields = tm()
        gmtime_r(&time, &fields)
        var text = String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d",
            Int(fields.tm_year) + 1900, Int(fields.tm_mon) + 1, Int(fields.tm_mday), Int(fields.tm_hour), Int(fields.tm_min), Int(fields.tm_sec)
        )
        if micros > 0 {
            var fraction = String(micros)
            fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return text + "Z"
    }
}
