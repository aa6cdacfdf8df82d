import CoreStoreConformance
import Foundation

/// One way a disk or a person damages a store's files, applied to a copy of a store.
enum StoreDamage: CustomStringConvertible {
    /// Bytes at these offsets of the file inverted.
    case flippedBytes(file: String, offsets: [Int])
    /// A 4 KiB page of the file zeroed.
    case zeroedPage(file: String, page: Int)
    /// A 4 KiB page of the file overwritten with random bytes.
    case overwrittenPage(file: String, page: Int)
    /// The file cut to this length.
    case truncated(file: String, length: Int)
    /// The file deleted.
    case deleted(file: String)

    static let pageSize = 4096

    var description: String {
        switch self {
        case .flippedBytes(let file, let offsets): "\(offsets.count) flipped bytes in \(file) at \(offsets.prefix(4))"
        case .zeroedPage(let file, let page): "page \(page) of \(file) zeroed"
        case .overwrittenPage(let file, let page): "page \(page) of \(file) overwritten"
        case .truncated(let file, let length): "\(file) cut to \(length) bytes"
        case .deleted(let file): "\(file) deleted"
        }
    }

    /// A random damage to one of `files` (paths relative to `root`, with their sizes); the
    /// files with data get the most of it.
    static func random(files: [(path: String, size: Int)], random: inout SplitMix64) -> StoreDamage {
        let weighted = files.flatMap { file in Array(repeating: file, count: file.size > 0 ? 4 : 1) }
        let file = weighted[random.below(weighted.count)]
        let pages = max(1, (file.size + pageSize - 1) / pageSize)
        switch file.size == 0 ? 4 : random.below(10) {
        case 0, 1, 2, 3:
            let count = 1 + random.below(8)
            return .flippedBytes(file: file.path, offsets: (0..<count).map { _ in random.below(max(1, file.size)) }.sorted())
        case 4, 5:
            return .zeroedPage(file: file.path, page: random.below(pages))
        case 6, 7:
            return .overwrittenPage(file: file.path, page: random.below(pages))
        case 8:
            return .truncated(file: file.path, length: random.below(max(1, file.size)))
        default:
            // Without its only file (or, for SQLite, its database file beside the counters
            // file) a store is absent, not damaged: it opens as a new one.
            guard files.count > 1, !file.path.hasSuffix(".sqlite") else { return .zeroedPage(file: file.path, page: random.below(pages)) }
            return .deleted(file: file.path)
        }
    }

    /// Applies the damage to the files under `root`.
    func apply(under root: URL, random: inout SplitMix64) throws {
        func url(_ file: String) -> URL { root.appendingPathComponent(file) }
        switch self {
        case .flippedBytes(let file, let offsets):
            var data = try Data(contentsOf: url(file))
            guard !data.isEmpty else { return }
            for offset in offsets where offset < data.count { data[offset] = ~data[offset] }
            try data.write(to: url(file))
        case .zeroedPage(let file, let page), .overwrittenPage(let file, let page):
            var data = try Data(contentsOf: url(file))
            let start = min(data.count, page * Self.pageSize)
            let end = min(data.count, start + Self.pageSize)
            if case .zeroedPage = self {
                data.replaceSubrange(start..<end, with: Data(count: end - start))
            } else {
                data.replaceSubrange(start..<end, with: Data((start..<end).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
            }
            try data.write(to: url(file))
        case .truncated(let file, let length):
            let handle = try FileHandle(forWritingTo: url(file))
            try handle.truncate(atOffset: UInt64(length))
            try handle.close()
        case .deleted(let file):
            try FileManager.default.removeItem(at: url(file))
        }
    }
}
