/// The storage type of an attribute, as a backend sees it.
///
/// Every storable Swift type maps to one of these; the ``Value`` case each one holds is listed
/// with it. A backend chooses its own column or byte representation per type.
public enum AttributeType: String, Sendable, Hashable, CaseIterable {
    /// `Value.bool`.
    case bool
    /// `Value.int`, for all signed and unsigned integer types up to 64 bits. `UInt64` and `UInt`
    /// values above `Int64.max` are held as `Value.decimal` so that they keep their order.
    case integer
    /// `Value.double`, for `Double` and `Float`.
    case double
    /// `Value.decimal`.
    case decimal
    /// `Value.string`.
    case string
    /// `Value.bytes`.
    case bytes
    /// `Value.date`.
    case date
    /// `Value.uuid`.
    case uuid
    /// `Value.string` holding an absolute URL string.
    case url
}
