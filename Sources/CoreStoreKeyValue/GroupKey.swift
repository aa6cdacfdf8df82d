import Foundation
import CoreStoreStorage

/// The `groupBy` values of one group as a dictionary key: equal exactly when every value is
/// equal in ``Value/storageOrder(_:_:)``, the equality that decides which records share a
/// group, and hashed consistently with it.
///
/// Numbers hash by value across their cases (`1`, `1.0` and `true` are one group, as are `0.0`
/// and `-0.0`; every NaN is one), strings by their UTF-8 bytes. A decimal that is not a whole
/// number hashes by its kind alone: correct, only slower when many groups are such decimals.
/// (One `groupBy` key is one attribute of one type, so a double never meets a decimal.)
struct GroupKey: Hashable {
    /// The group's values, one per `groupBy` key.
    let values: [Value]

    static func == (lhs: GroupKey, rhs: GroupKey) -> Bool {
        guard lhs.values.count == rhs.values.count else { return false }
        for (a, b) in zip(lhs.values, rhs.values) where Value.storageOrder(a, b) != 0 { return false }
        return true
    }

    func hash(into hasher: inout Hasher) {
        for value in values { Self.combine(value, into: &hasher) }
    }

    private static func combine(_ value: Value, into hasher: inout Hasher) {
        switch value {
        case .null: hasher.combine(0 as UInt8)
        case .bool(let b): combineWhole(b ? 1 : 0, into: &hasher)
        case .int(let i): combineWhole(i, into: &hasher)
        case .double(let d): combine(d, into: &hasher)
        case .decimal(let d):
            // A whole decimal has a whole double (no whole number lies between it and the
            // double nearest to it), so it hashes like the integer it equals.
            if let whole = Int64(exactly: NSDecimalNumber(decimal: d).doubleValue) {
                combineWhole(whole, into: &hasher)
            } else {
                hasher.combine(2 as UInt8)
            }
        case .string(let s): hasher.combine(3 as UInt8); for byte in s.utf8 { hasher.combine(byte) }
        case .bytes(let data): hasher.combine(4 as UInt8); hasher.combine(data)
        case .date(let date): hasher.combine(5 as UInt8); combine(date.timeIntervalSinceReferenceDate, into: &hasher)
        case .uuid(let uuid): hasher.combine(6 as UInt8); hasher.combine(uuid)
        }
    }

    /// A whole number, whatever case holds it.
    private static func combineWhole(_ n: Int64, into hasher: inout Hasher) {
        hasher.combine(1 as UInt8)
        hasher.combine(n)
    }

    /// A double: as a whole number when it is one, every NaN alike.
    private static func combine(_ d: Double, into hasher: inout Hasher) {
        if let whole = Int64(exactly: d) {
            combineWhole(whole, into: &hasher)
        } else if d.isNaN {
            hasher.combine(7 as UInt8)
        } else {
            hasher.combine(8 as UInt8)
            hasher.combine(d.bitPattern)
        }
    }
}
