import Foundation

/// Bytes on their way to standard output, written in 64 KiB pieces so that a dump of any size
/// streams in bounded memory.
struct OutputBuffer {
    private var bytes: [UInt8] = []
    private let handle: FileHandle

    init(_ handle: FileHandle = .standardOutput) {
        self.handle = handle
        bytes.reserveCapacity(1 << 16)
    }

    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !bytes.isEmpty else { return }
        handle.write(Data(bytes))
        bytes.removeAll(keepingCapacity: true)
    }
}
