import Foundation

/// The file operations a process made under one directory, in order, as the power-cut recorder
/// (`libPowerCutRecorder.so`, see `Sources/CPowerCutRecorder`) wrote them, with what the process
/// printed in between.
struct PowerCutJournal {
    /// One recorded operation. Byte payloads are ranges of ``bytes``.
    enum Operation {
        /// A file or directory under the watched directory was opened; `file` is its inode.
        case open(file: UInt64, path: String, flags: Int32, isDirectory: Bool)
        /// Bytes were written to `file` at `offset`.
        case write(file: UInt64, offset: Int, bytes: Range<Int>)
        /// `fsync` or `fdatasync` of `file` returned (or a write to an `O_DSYNC` file did).
        case sync(file: UInt64)
        /// `file` was truncated or extended to `size` bytes.
        case truncate(file: UInt64, size: Int)
        /// A file or directory was renamed.
        case rename(from: String, to: String)
        /// A file was removed.
        case unlink(path: String)
        /// A directory was made.
        case makeDirectory(path: String)
        /// A directory was removed.
        case removeDirectory(path: String)
        /// The process printed `text` on its standard output.
        case mark(text: String)
    }

    /// The journal's bytes; write payloads point into them.
    let bytes: [UInt8]
    /// The operations, in the order the process made them.
    let operations: [Operation]

    /// The size of a record header (`corestore_powercut_header`).
    static let headerSize = 32

    /// Reads the journal at `url`.
    init(contentsOf url: URL) throws {
        let bytes = [UInt8](try Data(contentsOf: url))
        var operations: [Operation] = []
        var cursor = 0
        while cursor < bytes.count {
            guard cursor + Self.headerSize <= bytes.count else {
                throw TortureSetupError(message: "the power-cut journal ends inside a record header at byte \(cursor)")
            }
            let kind = bytes[cursor]
            let length = Int(Self.load(UInt32.self, bytes, at: cursor + 4))
            let file = Self.load(UInt64.self, bytes, at: cursor + 8)
            let a = Self.load(UInt64.self, bytes, at: cursor + 16)
            let b = Self.load(UInt64.self, bytes, at: cursor + 24)
            let payload = (cursor + Self.headerSize)..<(cursor + Self.headerSize + length)
            guard payload.upperBound <= bytes.count else {
                throw TortureSetupError(message: "the power-cut journal ends inside a record at byte \(cursor)")
            }
            let text = { String(decoding: bytes[payload], as: UTF8.self) }
            switch kind {
            case 1: operations.append(.open(file: file, path: text(), flags: Int32(truncatingIfNeeded: a), isDirectory: b != 0))
            case 2: operations.append(.write(file: file, offset: Int(a), bytes: payload))
            case 3: operations.append(.sync(file: file))
            case 4: operations.append(.truncate(file: file, size: Int(a)))
            case 5:
                guard let zero = bytes[payload].firstIndex(of: 0) else {
                    throw TortureSetupError(message: "a rename in the power-cut journal lacks its separator")
                }
                operations.append(.rename(
                    from: String(decoding: bytes[payload.lowerBound..<zero], as: UTF8.self),
                    to: String(decoding: bytes[(zero + 1)..<payload.upperBound], as: UTF8.self)
                ))
            case 6: operations.append(.unlink(path: text()))
            case 7: operations.append(.makeDirectory(path: text()))
            case 8: operations.append(.removeDirectory(path: text()))
            case 9: operations.append(.mark(text: text()))
            default: throw TortureSetupError(message: "unknown record kind \(kind) in the power-cut journal at byte \(cursor)")
            }
            cursor = payload.upperBound
        }
        self.bytes = bytes
        self.operations = operations
    }

    private static func load<T: FixedWidthInteger>(_ type: T.Type, _ bytes: [UInt8], at offset: Int) -> T {
        var value = T.zero
        for index in 0..<MemoryLayout<T>.size { value |= T(bytes[offset + index]) << (8 * index) }
        return value
    }
}
