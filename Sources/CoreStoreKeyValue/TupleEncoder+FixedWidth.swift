import Foundation
import CoreStoreStorage

extension TupleEncoder {
    /// The most bytes ``storeFixedWidth(_:at:)`` writes for one element (a `uuid`: its code and
    /// 16 bytes).
    static let largestFixedWidthElement = 17

    /// Writes the encoding of `value` at `destination` when its size is known in advance (`nil`,
    /// `bool`, `int`, `double`, `date`, `uuid`) and returns how many bytes it wrote; returns
    /// `nil`, writing nothing, for strings, bytes and decimals.
    ///
    /// The bytes are those ``encode(_:into:)`` appends, stored through a pointer: building an
    /// index entry of numbers this way makes no array append per element. `destination` must
    /// have room for ``largestFixedWidthElement`` bytes.
    static func storeFixedWidth(_ value: Value, at destination: UnsafeMutableRawPointer) -> Int? {
        switch value {
        case .null:
            destination.storeBytes(of: TypeCode.null, as: UInt8.self)
            return 1
        case .bool(let b):
            destination.storeBytes(of: TypeCode.bool, as: UInt8.self)
            destination.storeBytes(of: b ? 1 : 0, toByteOffset: 1, as: UInt8.self)
            return 2
        case .int(let i):
            return storeInt(i, at: destination)
        case .double(let d):
            if d.isNaN {
                destination.storeBytes(of: TypeCode.doubleNaN, as: UInt8.self)
                return 1
            }
            destination.storeBytes(of: TypeCode.double, as: UInt8.self)
            destination.storeBytes(of: orderedBits(of: d).bigEndian, toByteOffset: 1, as: UInt64.self)
            return 9
        case .date(let date):
            destination.storeBytes(of: TypeCode.date, as: UInt8.self)
            destination.storeBytes(of: orderedBits(of: date.timeIntervalSinceReferenceDate).bigEndian, toByteOffset: 1, as: UInt64.self)
            return 9
        case .uuid(let uuid):
            destination.storeBytes(of: TypeCode.uuid, as: UInt8.self)
            withUnsafeBytes(of: uuid.uuid) { (destination + 1).copyMemory(from: $0.baseAddress.unsafelyUnwrapped, byteCount: 16) }
            return 17
        case .string, .bytes, .decimal:
            return nil
        }
    }

    /// Writes the `int` element of `i` (9 bytes) at `destination` and returns 9.
    static func storeInt(_ i: Int64, at destination: UnsafeMutableRawPointer) -> Int {
        destination.storeBytes(of: TypeCode.int, as: UInt8.self)
        destination.storeBytes(of: (UInt64(bitPattern: i) ^ (1 << 63)).bigEndian, toByteOffset: 1, as: UInt64.self)
        return 9
    }

    /// The bits ``appendOrderedDouble(_:into:)`` writes for `d` (before byte-swapping).
    static func orderedBits(of d: Double) -> UInt64 {
        let bits = (d == 0 ? 0.0 : d).bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }
}
