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
        if let optional = any as? any OptionalProtocol {
            guard let wrapped = optional.wrappedAny else { self = .null; return }
            self.init(any: wrapped, as: type)
            return
        }
        switch (type, any) {
        case (.bool, let value as Bool): self = .bool(value)
        case (.integer, let value as any BinaryInteger):
            guard let exact = Int64(exactly: value) else {
                guard let decimal = Decimal(string: "\(value)") else { return nil }
                self = .decimal(decimal)
                return
            }
            self = .int(exact)
        case (.double, let value as Double): self = .double(value)
        case (.double, let value as Float): self = .double(Double(value))
        case (.double, let value as any BinaryInteger):
            guard let exact = Double(exactly: value) else { return nil }
            self = .double(exact)
        case (.decimal, let value as Decimal): self = .decimal(value)
        case (.decimal, let value as any BinaryInteger):
            guard let decimal = Decimal(string: "\(value)") else { return nil }
            self = .decimal(decimal)
        case (.string, let value as String): self = .string(value)
        case (.string, let value as Substring): self = .string(String(value))
        case (.bytes, let value as Data): self = .bytes(value)
        case (.bytes, let value as [UInt8]): self = .bytes(Data(value))
        case (.date, let value as Date): self = .date(value)
        case (.uuid, let value as UUID): self = .uuid(value)
        case (.url, let value as URL): self = .string(value.absoluteString)
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
