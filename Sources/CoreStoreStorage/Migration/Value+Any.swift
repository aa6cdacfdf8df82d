import Foundation

extension Value {
    /// The Swift value a migration transformer reads: `String`, `Int64`, `Double`, `Bool`,
    /// `Decimal`, `Data`, `Date`, `UUID`, or `URL` for a URL attribute; `nil` for ``Value/null``.
    public func anyValue(as type: AttributeType) -> Any? {
        switch self {
        case .null: return nil
        case .bool(let value): return value
        case .int(let value): return value
        case .double(let value): return value
        case .decimal(let value): return value
        case .string(let value): return type == .url ? (URL(string: value) ?? value as Any) : value
        case .bytes(let value): return value
        case .date(let value): return value
        case .uuid(let value): return value
        }
    }

    /// The value of `type` that `any` (any integer or floating-point type, `Bool`, `String`,
    /// `Decimal`, `Data`, `Date`, `UUID`, `URL`, a `RawRepresentable` of these, or `nil`)
    /// stands for; `nil` when it is not one of them or does not fit `type` without loss.
    public init?(any: Any?, as type: AttributeType) {
        guard let any else { self = .null; return }
        // The common case first: the Swift type the attribute stores. Dynamic casts cost, and
        // a migration converts every value of every record.
        switch type {
        case .string: if let value = any as? String { self = .string(value); return }
        case .integer:
            if let value = any as? Int { self = .int(Int64(value)); return }
            if let value = any as? Int64 { self = .int(value); return }
        case .double: if let value = any as? Double { self = .double(value); return }
        case .bool: if let value = any as? Bool { self = .bool(value); return }
        case .date: if let value = any as? Date { self = .date(value); return }
        case .decimal: if let value = any as? Decimal { self = .decimal(value); return }
        case .bytes: if let value = any as? Data { self = .bytes(value); return }
        case .uuid: if let value = any as? UUID { self = .uuid(value); return }
        case .url: if let value = any as? URL { self = .string(value.absoluteString); return }
        }
        if let optional = any as? any OptionalProtocol {
            guard let wrapped = optional.wrappedAny else { self = .null; return }
            self.init(any: wrapped, as: type)
            return
        }
        switch (type, any) {
        case (.integer, let value as any BinaryInteger):
            guard let exact = Int64(exactly: value) else {
                guard let decimal = Decimal(string: "\(value)") else { return nil }
                self = .decimal(decimal)
                return
            }
            self = .int(exact)
        case (.double, let value as Float): self = .double(Double(value))
        case (.double, let value as any BinaryInteger):
            guard let exact = Double(exactly: value) else { return nil }
            self = .double(exact)
        case (.decimal, let value as any BinaryInteger):
            guard let decimal = Decimal(string: "\(value)") else { return nil }
            self = .decimal(decimal)
        case (.string, let value as Substring): self = .string(String(value))
        case (.bytes, let value as [UInt8]): self = .bytes(Data(value))
        case (.url, let value as String): self = .string(value)
        case (_, let value as any RawRepresentable):
            self.init(any: value.rawValue, as: type)
        default:
            return nil
        }
    }
}

/// Lets ``Value/init(any:as:)`` see through an `Optional` hidden in an `Any`.
protocol OptionalProtocol {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalProtocol {
    var wrappedAny: Any? { self.map { $0 as Any } }
}
