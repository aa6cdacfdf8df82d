import Foundation
import CoreStoreStorage

/// The text that names a section: see ``SectionBy/sectionName(for:)``.
enum ListSectionName {
    static func name(for value: Value) -> String? {
        switch value {
        case .null: return nil
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .decimal(let d): return "\(d)"
        case .string(let s): return s
        case .bytes(let data): return data.map { String(format: "%02x", $0) }.joined()
        case .date(let date): return date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        case .uuid(let uuid): return uuid.uuidString
        }
    }
}
