import Foundation
import CoreStoreStorage
import CoreStoreKeyValue

/// Where LevelDB's log format (the write-ahead `NNNNNN.log` and the `MANIFEST-NNNNNN`) stops
/// being intact, read the way LevelDB's own log reader reads it with `paranoid_checks`.
///
/// The format: 32 KiB blocks of physical records, each a 7-byte header (masked CRC-32C of the
/// type and payload, 2-byte little-endian length, type) and a payload; a logical record is one
/// `full` physical record, or `first`, any `middle`s and `last`. A block's last 6 or fewer bytes
/// are padding; a zero header skips the rest of its block. A record cut short by the end of the
/// file is where a writer stopped, not damage.
///
/// A power cut can leave any part of what was written after the last sync on disk, in any order
/// (``LevelDBLogTail/Verdict/tornTail(intactLength:damageOffset:)``), and LevelDB with
/// `paranoid_checks` then refuses to open, although every synced record is intact. Damage after
/// which intact records start again (``LevelDBLogTail/Verdict/damaged(intactLength:damageOffset:)``)
/// cannot come from a power cut when every write is synced before the next begins.
enum LevelDBLogTail {
    /// What ``examine(_:)`` found.
    enum Verdict: Equatable {
        /// Every record is intact (the last may be cut short by the end of the file).
        case intact
        /// Damage at `damageOffset`, and no logical record starts intact after it: the torn end
        /// of an interrupted write. The first `intactLength` bytes hold every intact record.
        case tornTail(intactLength: Int, damageOffset: Int)
        /// Damage at `damageOffset`, with an intact logical record starting after it.
        case damaged(intactLength: Int, damageOffset: Int)
    }

    static let blockSize = 32_768
    static let headerSize = 7

    private enum RecordType: UInt8 {
        case zero = 0, full = 1, first = 2, middle = 3, last = 4
    }

    /// Reads `bytes` as a log.
    static func examine(_ bytes: [UInt8]) -> Verdict {
        var offset = 0
        var intactLength = 0
        var insideRecord = false
        while offset < bytes.count {
            let blockLeft = blockSize - offset % blockSize
            if blockLeft < headerSize {
                offset += blockLeft
                continue
            }
            guard offset + headerSize <= bytes.count else { break }
            let length = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8
            let rawType = bytes[offset + 6]
            if rawType == RecordType.zero.rawValue && length == 0 {
                if insideRecord { return verdict(bytes, intactLength: intactLength, damageOffset: offset) }
                offset += blockLeft
                continue
            }
            let end = offset + headerSize + length
            // The file ends inside this block and before the record does: where a writer stopped.
            if end > bytes.count && bytes.count - offset < blockLeft { break }
            guard headerSize + length <= blockLeft, let type = RecordType(rawValue: rawType), type != .zero,
                  isChecksumValid(bytes, at: offset, length: length) else {
                return verdict(bytes, intactLength: intactLength, damageOffset: offset)
            }
            switch type {
            case .full:
                if insideRecord { return verdict(bytes, intactLength: intactLength, damageOffset: offset) }
                intactLength = end
            case .first:
                if insideRecord { return verdict(bytes, intactLength: intactLength, damageOffset: offset) }
                insideRecord = true
            case .middle:
                if !insideRecord { return verdict(bytes, intactLength: intactLength, damageOffset: offset) }
            case .last:
                if !insideRecord { return verdict(bytes, intactLength: intactLength, damageOffset: offset) }
                insideRecord = false
                intactLength = end
            case .zero:
                break
            }
            offset = end
        }
        return .intact
    }

    /// Damage at `damageOffset`: torn, unless an intact `full` or `first` record (the start of a
    /// logical record) follows. Physical records never cross a block boundary, so the search
    /// starts over at each later block and reads on from there.
    private static func verdict(_ bytes: [UInt8], intactLength: Int, damageOffset: Int) -> Verdict {
        var block = (damageOffset / blockSize + 1) * blockSize
        while block < bytes.count {
            var offset = block
            let blockEnd = min(block + blockSize, bytes.count)
            while offset + headerSize <= blockEnd {
                let length = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8
                let type = bytes[offset + 6]
                guard type != RecordType.zero.rawValue, offset + headerSize + length <= blockEnd,
                      isChecksumValid(bytes, at: offset, length: length) else { break }
                if type == RecordType.full.rawValue || type == RecordType.first.rawValue {
                    return .damaged(intactLength: intactLength, damageOffset: damageOffset)
                }
                offset += headerSize + length
            }
            block += blockSize
        }
        return .tornTail(intactLength: intactLength, damageOffset: damageOffset)
    }

    /// Whether the record header at `offset` holds the masked CRC-32C of its type and payload.
    private static func isChecksumValid(_ bytes: [UInt8], at offset: Int, length: Int) -> Bool {
        let stored = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
        let crc = CRC32C.checksum(bytes[(offset + 6)..<(offset + headerSize + length)])
        return stored == LevelDBChecksum.mask(crc)
    }
}

/// LevelDB's masking of a stored CRC-32C (`crc32c::Mask`), so that a checksum of data that
/// holds checksums stays strong.
enum LevelDBChecksum {
    /// The masked form of `crc`.
    static func mask(_ crc: UInt32) -> UInt32 {
        ((crc >> 15) | (crc << 17)) &+ 0xA282_EAD8
    }
}
