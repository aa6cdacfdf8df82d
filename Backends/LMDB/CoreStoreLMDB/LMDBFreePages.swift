import Foundation

/// Reads the free-page database of an LMDB `data.mdb` with plain file reads (never a map, so a
/// damaged file is an answer, not a SIGBUS), to tell whether the pages past the end of a file
/// that is shorter than its meta page says are all free.
///
/// LMDB does not write a page it allocated and freed again in the same transaction (a "loose"
/// page): the commit records it in the free database but the file may end before it, so a valid
/// environment can end before its last page (`mm_last_pg`). Such a page is never read; a page
/// that a B-tree still uses is never past the end of an intact file.
///
/// Layout read (LMDB 0.9, 64-bit): a page starts with its number (8 bytes), padding (2), flags
/// (2) and `lower`/`upper` (2 + 2), or the overflow page count (4); node offsets follow from
/// byte 16. A node is `lo`, `hi`, `flags`, `ksize` (2 bytes each), then the key and the data. A
/// branch node's child is `lo | hi << 16 | flags << 32`; a leaf's data size is `lo | hi << 16`,
/// and with `F_BIGDATA` its data is the number of an overflow page. A free-database record is
/// an ID list: the count, then that many page numbers (8 bytes each).
struct LMDBFreePages {
    /// `P_BRANCH`, `P_LEAF`, `P_OVERFLOW` and `F_BIGDATA` of `mdb.c`.
    private static let branchPage: UInt16 = 0x01, leafPage: UInt16 = 0x02, overflowPage: UInt16 = 0x04
    private static let bigData: UInt16 = 0x01
    private static let headerSize = 16, nodeHeaderSize = 8

    let handle: FileHandle
    let pageSize: Int
    /// The whole pages the file holds.
    let filePages: UInt64

    /// Whether every page in `pages` is recorded in the free database whose root page is `root`;
    /// `false` also when that database cannot be read within the file.
    func areAllFree(_ pages: ClosedRange<UInt64>, freeDatabaseRoot root: UInt64) -> Bool {
        // The file cannot record more free pages than it has room for (nor a garbage range).
        guard pages.upperBound - pages.lowerBound < filePages * UInt64(pageSize / 8) else { return false }
        guard let free = freePages(from: pages.lowerBound, root: root), free.count >= pages.count else { return false }
        return pages.allSatisfy(free.contains)
    }

    /// The free pages numbered `lowest` or more, `nil` if the free database leaves the file or
    /// is not what LMDB writes.
    private func freePages(from lowest: UInt64, root: UInt64) -> Set<UInt64>? {
        var free = Set<UInt64>()
        if root == UInt64.max { return free }  // P_INVALID: no free database
        var pending = [root]
        var visited: UInt64 = 0
        while let number = pending.popLast() {
            visited += 1
            guard visited <= filePages, let page = read(number, pages: 1) else { return nil }
            let flags = Self.word(page, 10)
            let lower = Int(Self.word(page, 12))
            guard lower >= Self.headerSize, lower <= pageSize else { return nil }
            for index in 0..<((lower - Self.headerSize) / 2) {
                let node = Int(Self.word(page, Self.headerSize + 2 * index))
                guard node >= Self.headerSize, node + Self.nodeHeaderSize <= pageSize else { return nil }
                let lo = UInt64(Self.word(page, node)), hi = UInt64(Self.word(page, node + 2))
                let nodeFlags = Self.word(page, node + 4), keySize = Int(Self.word(page, node + 6))
                if flags & Self.branchPage != 0 {
                    pending.append(lo | hi << 16 | UInt64(nodeFlags) << 32)
                } else if flags & Self.leafPage != 0 {
                    let start = node + Self.nodeHeaderSize + keySize
                    guard let list = data(of: page, at: start, size: Int(lo | hi << 16), onOverflow: nodeFlags & Self.bigData != 0),
                          Self.collect(list, from: lowest, into: &free) else { return nil }
                } else {
                    return nil
                }
            }
        }
        return free
    }

    /// A leaf node's data: inline in `page` at `start`, or on the overflow pages it names.
    private func data(of page: [UInt8], at start: Int, size: Int, onOverflow: Bool) -> ArraySlice<UInt8>? {
        guard onOverflow else {
            guard start + size <= pageSize else { return nil }
            return page[start..<(start + size)]
        }
        guard start + 8 <= pageSize, let first = read(Self.integer(page[...], start), pages: 1),
              Self.word(first, 10) & Self.overflowPage != 0 else { return nil }
        let count = UInt64(Self.word(first, 12)) | UInt64(Self.word(first, 14)) << 16
        guard size + Self.headerSize <= Int(count) * pageSize,
              let pages = read(Self.integer(page[...], start), pages: count) else { return nil }
        return pages[Self.headerSize..<(Self.headerSize + size)]
    }

    /// Adds the page numbers of the ID list `list` that are `lowest` or more to `free`.
    private static func collect(_ list: ArraySlice<UInt8>, from lowest: UInt64, into free: inout Set<UInt64>) -> Bool {
        guard list.count >= 8 else { return false }
        let count = integer(list, list.startIndex)
        guard count < UInt64(list.count / 8) else { return false }
        for index in stride(from: 1, through: Int(count), by: 1) {
            let page = integer(list, list.startIndex + 8 * index)
            if page >= lowest { free.insert(page) }
        }
        return true
    }

    /// `count` pages from page `number`, `nil` past the end of the file.
    private func read(_ number: UInt64, pages count: UInt64) -> [UInt8]? {
        guard count > 0, number < filePages, count <= filePages - number else { return nil }
        do {
            try handle.seek(toOffset: number * UInt64(pageSize))
            let bytes = [UInt8](try handle.read(upToCount: Int(count) * pageSize) ?? Data())
            return bytes.count == Int(count) * pageSize ? bytes : nil
        } catch {
            return nil
        }
    }

    private static func word(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    private static func integer(_ bytes: ArraySlice<UInt8>, _ offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }
}
