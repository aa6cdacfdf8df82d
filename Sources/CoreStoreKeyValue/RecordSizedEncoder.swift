import Foundation
import CoreStoreStorage

/// Writes a record in ``RecordCodec``'s format version 2 into an array of exactly its size,
/// measured first, with direct stores: no growth, no capacity or uniqueness check per byte.
/// The bytes are the same as the growing encoder's; records it does not take (a decimal value,
/// whose text would be made twice, or 64 KiB of values, which need wider offsets) are left to
/// that encoder.
enum RecordSizedEncoder {
    /// The bytes of `record`, `nil` when it is not of the shapes this encoder takes.
    static func encode(_ record: Record) -> [UInt8]? {
        withUnsafePointer(to: record) { record in
            guard let size = measure(record) else { return nil }
            var bytes = [UInt8](repeating: 0, count: size.total)
            bytes.withUnsafeMutableBytes { write(record, to: $0.baseAddress.unsafelyUnwrapped) }
            return bytes
        }
    }

    /// Writes the bytes of `record` at the start of `buffer`, which grows when it is too short
    /// (its bytes past the record are left as they were), and returns their count; `nil` when
    /// the record is not of the shapes this encoder takes. For a caller that reuses one buffer
    /// for many records.
    static func encode(recordAt record: UnsafePointer<Record>, into buffer: inout [UInt8]) -> Int? {
        guard let size = measure(record) else { return nil }
        if buffer.count < size.total { buffer.append(contentsOf: repeatElement(0, count: size.total - buffer.count)) }
        buffer.withUnsafeMutableBytes { write(record, to: $0.baseAddress.unsafelyUnwrapped) }
        return size.total
    }

    /// Writes the record at `record`, whose size ``measure(_:)`` took, from `base` on. The
    /// record is read in place (see ``RecordCodec/encode(recordAt:into:)``).
    private static func write(_ record: UnsafePointer<Record>, to base: UnsafeMutableRawPointer) {
        var w = PointerWriter(base: base)
        w.byte(RecordCodec.formatVersion)
        w.string(record.pointee.id.entity)
        w.signed(record.pointee.id.key)
        w.varint(UInt64(record.pointee.attributes.count))
        w.byte(2)
        let table = w.position
        w.position += record.pointee.attributes.count * 2
        let values = w.position
        // The values through their buffer, borrowed in place: neither the record nor its arrays
        // are copied or retained.
        record.pointee.attributes.withUnsafeBufferPointer { attributes in
            for i in attributes.indices {
                let offset = w.position - values
                w.base.storeBytes(of: UInt16(truncatingIfNeeded: offset).littleEndian, toByteOffset: table + 2 * i, as: UInt16.self)
                w.value(attributes[i])
            }
        }
        w.varint(UInt64(record.pointee.relationships.count))
        for destinations in record.pointee.relationships {
            w.varint(UInt64(destinations.count))
            for id in destinations {
                w.string(id.entity)
                w.signed(id.key)
            }
        }
        let checksum = CRC32C.checksum(UnsafeRawBufferPointer(start: base, count: w.position))
        w.base.storeBytes(of: checksum.littleEndian, toByteOffset: w.position, as: UInt32.self)
    }

    /// The record's size with its checksum; `nil` for a decimal value or values too large for
    /// two-byte offsets.
    private static func measure(_ record: UnsafePointer<Record>) -> (total: Int, values: Int)? {
        // The values through their buffer, borrowed in place (as in ``write(_:to:)``).
        let measured: Int? = record.pointee.attributes.withUnsafeBufferPointer { attributes in
            var values = 0
            for value in attributes {
                switch value {
                case .null, .bool: values += 1
                case .int(let i): values += 1 + varintSize(zigzag(i))
                case .double, .date: values += 9
                case .decimal: return nil
                case .string(let s): values += 1 + lengthPrefixed(s.utf8.count)
                case .bytes(let data): values += 1 + lengthPrefixed(data.count)
                case .uuid: values += 17
                }
            }
            return values
        }
        guard let values = measured, values <= Int(UInt16.max) else { return nil }
        var size = 1 + lengthPrefixed(record.pointee.id.entity.utf8.count) + varintSize(zigzag(record.pointee.id.key))
        size += varintSize(UInt64(record.pointee.attributes.count)) + 1 + 2 * record.pointee.attributes.count + values
        size += varintSize(UInt64(record.pointee.relationships.count))
        for destinations in record.pointee.relationships {
            size += varintSize(UInt64(destinations.count))
            for id in destinations {
                size += lengthPrefixed(id.entity.utf8.count) + varintSize(zigzag(id.key))
            }
        }
        return (size + RecordCodec.checksumSize, values)
    }

    /// The size of a length prefix and the `count` bytes after it.
    @inline(__always)
    private static func lengthPrefixed(_ count: Int) -> Int {
        varintSize(UInt64(count)) + count
    }

    /// The number of bytes of `value` as a LEB128 varint.
    @inline(__always)
    static func varintSize(_ value: UInt64) -> Int {
        // 1 byte per started group of 7 bits; 0 takes one byte.
        let bits = 64 - (value | 1).leadingZeroBitCount
        return (bits + 6) / 7
    }

    /// A signed integer in zig-zag form.
    @inline(__always)
    static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    /// Stores at a position of a buffer the encoder measured to fit.
    private struct PointerWriter {
        let base: UnsafeMutableRawPointer
        var position = 0

        mutating func byte(_ b: UInt8) {
            base.storeBytes(of: b, toByteOffset: position, as: UInt8.self)
            position += 1
        }

        mutating func varint(_ value: UInt64) {
            var v = value
            while v >= 0x80 {
                byte(UInt8(truncatingIfNeeded: v) | 0x80)
                v >>= 7
            }
            byte(UInt8(v))
        }

        mutating func signed(_ value: Int64) { varint(zigzag(value)) }

        mutating func fixed64(_ value: UInt64) {
            base.storeBytes(of: value.bigEndian, toByteOffset: position, as: UInt64.self)
            position += 8
        }

        mutating func raw(_ bytes: UnsafeRawBufferPointer) {
            varint(UInt64(bytes.count))
            if let source = bytes.baseAddress, !bytes.isEmpty {
                (base + position).copyMemory(from: source, byteCount: bytes.count)
            }
            position += bytes.count
        }

        mutating func string(_ s: String) {
            var s = s
            s.withUTF8 { raw(UnsafeRawBufferPointer($0)) }
        }

        mutating func value(_ value: Value) {
            switch value {
            case .null: byte(0)
            case .bool(let b): byte(b ? 2 : 1)
            case .int(let i): byte(3); signed(i)
            case .double(let d): byte(4); fixed64(d.bitPattern)
            case .decimal(let d): byte(5); string(d.description)  // not reached: measure(_:) refuses decimals
            case .string(let s): byte(6); string(s)
            case .bytes(let data): byte(7); data.withUnsafeBytes { raw($0) }
            case .date(let date): byte(8); fixed64(date.timeIntervalSinceReferenceDate.bitPattern)
            case .uuid(let uuid):
                byte(9)
                withUnsafeBytes(of: uuid.uuid) { bytes in
                    (base + position).copyMemory(from: bytes.baseAddress.unsafelyUnwrapped, byteCount: 16)
                }
                position += 16
            }
        }
    }
}
