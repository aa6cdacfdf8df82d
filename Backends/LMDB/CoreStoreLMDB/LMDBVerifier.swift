import Foundation
import CoreStoreStorage
#if canImport(Glibc)
import Glibc
#endif

/// Walks every page an LMDB `data.mdb` uses, with plain file reads, and checks its structure,
/// so that a damaged environment is refused with an error instead of crashing the process.
///
/// liblmdb trusts its pages: a zeroed or overwritten branch page makes it fail an assertion
/// (`SIGABRT`), follow a wild page number (`SIGSEGV`) or read past the file (`SIGBUS`), and a
/// damaged key can end a range scan early. ``LMDBEngine`` runs this walk before `mdb_env_open`
/// when asked (`verifiesOnOpen`); it reads the whole file once.
///
/// What is checked, on both B-trees of the newer meta page (the free-page database and the main
/// database), for LMDB 0.9 on 64-bit builds (the layout `LMDBFreePages` describes):
/// - every page number lies in the file and at or below the meta page's last page, and no page
///   is used twice (no cycle);
/// - each page's header repeats its number; branch pages above, leaf pages at the depth the
///   database records, overflow pages where a leaf points;
/// - node offsets, keys and inline data lie inside their page, overflow data inside its pages;
/// - keys are in strictly increasing order within each page and within the bounds the branch
///   pages above give them, byte-wise for the main database and as integers for the free one;
/// - the database's recorded counts of branch, leaf and overflow pages and of entries match.
struct LMDBVerifier {
    /// `P_BRANCH`, `P_LEAF`, `P_OVERFLOW`, `P_META`, `P_LEAF2`, `P_SUBP` of `mdb.c`.
    private static let branchPage: UInt16 = 0x01, leafPage: UInt16 = 0x02, overflowPage: UInt16 = 0x04
    private static let kindMask: UInt16 = 0x01 | 0x02 | 0x04 | 0x08 | 0x20 | 0x40
    /// `F_BIGDATA` and `MDB_INTEGERKEY`.
    private static let bigData: UInt16 = 0x01
    private static let integerKeys: UInt16 = 0x08
    private static let headerSize = 16, nodeHeaderSize = 8
    private static let noPage = UInt64.max
    /// Deeper than any B-tree LMDB can build in a 64-bit address space.
    private static let maximumDepth = 64

    /// The damage found: where and what.
    struct Damage: Error, CustomStringConvertible {
        let description: String
    }

    private let descriptor: Int32
    private let pageSize: Int
    private let filePages: UInt64
    private var lastPage: UInt64 = 0
    private var used: Set<UInt64> = []
    private var page: [UInt8]

    /// Throws ``StorageError/incompatibleStore(path:reason:)`` naming the first damage found in
    /// the environment `directory`, whose `data.mdb` has passed `LMDBFileFormat`'s check.
    static func verify(directory: URL) throws {
        let file = directory.appendingPathComponent("data.mdb")
        let descriptor = Glibc.open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StorageError.engine(code: Int(errno), message: "cannot read \(file.path) to verify it: \(String(cString: strerror(errno)))")
        }
        defer { _ = Glibc.close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw StorageError.engine(code: Int(errno), message: "cannot read \(file.path) to verify it: \(String(cString: strerror(errno)))")
        }
        if status.st_size == 0 { return }
        var header = [UInt8](repeating: 0, count: 48)
        guard pread(descriptor, &header, 48, 0) == 48 else {
            throw StorageError.incompatibleStore(path: directory.path, reason: "data.mdb is damaged: its first meta page cannot be read")
        }
        let pageSize = Int(header[40]) | Int(header[41]) << 8 | Int(header[42]) << 16 | Int(header[43]) << 24
        var verifier = LMDBVerifier(descriptor: descriptor, pageSize: pageSize, filePages: UInt64(status.st_size) / UInt64(pageSize))
        do {
            try verifier.verify()
        } catch let damage as Damage {
            throw StorageError.incompatibleStore(path: directory.path, reason: "data.mdb is damaged: \(damage)")
        }
    }

    private init(descriptor: Int32, pageSize: Int, filePages: UInt64) {
        self.descriptor = descriptor
        self.pageSize = pageSize
        self.filePages = filePages
        page = [UInt8](repeating: 0, count: pageSize)
    }

    /// One database record of a meta page (`MDB_db`).
    private struct Database {
        let name: String
        let isFreePages: Bool
        let flags: UInt16
        let depth: Int
        let branchPages: UInt64, leafPages: UInt64, overflowPages: UInt64, entries: UInt64
        let root: UInt64
    }

    /// What a walk of one database counted.
    private struct Counts {
        var branchPages: UInt64 = 0, leafPages: UInt64 = 0, overflowPages: UInt64 = 0, entries: UInt64 = 0
    }

    private mutating func verify() throws {
        var newest: (txnid: UInt64, databases: [Database], lastPage: UInt64)?
        for meta in 0..<2 as Range<UInt64> {
            try read(meta)
            guard integer(16, bytes: 4) == 0xBEEF_C0DE else { throw Damage(description: "meta page \(meta) is not LMDB's") }
            let txnid = integer(144, bytes: 8)
            if newest.map({ txnid > $0.txnid }) ?? true {
                newest = (txnid, [database(at: 40, name: "the free-page database"), database(at: 88, name: "the main database")], integer(136, bytes: 8))
            }
        }
        guard let newest else { return }
        lastPage = newest.lastPage
        used = [0, 1]
        for database in newest.databases { try walk(database) }
    }

    private func database(at offset: Int, name: String) -> Database {
        Database(
            name: name, isFreePages: offset == 40, flags: word(offset + 4), depth: Int(word(offset + 6)),
            branchPages: integer(offset + 8, bytes: 8), leafPages: integer(offset + 16, bytes: 8),
            overflowPages: integer(offset + 24, bytes: 8), entries: integer(offset + 32, bytes: 8),
            root: integer(offset + 40, bytes: 8)
        )
    }

    /// A page to visit, with the bounds its keys must respect (`nil`: unbounded).
    private struct Visit {
        let number: UInt64
        let depth: Int
        let lower: [UInt8]?
        let upper: [UInt8]?
    }

    private mutating func walk(_ database: Database) throws {
        if database.root == Self.noPage {
            guard database.depth == 0, database.entries == 0 else {
                throw Damage(description: "\(database.name) has no root page but records \(database.entries) entries at depth \(database.depth)")
            }
            return
        }
        guard (1...Self.maximumDepth).contains(database.depth) else {
            throw Damage(description: "\(database.name) records an impossible depth (\(database.depth))")
        }
        // The free-page database is keyed by transaction numbers (`MDB_INTEGERKEY`).
        let integerKeys = database.isFreePages || database.flags & Self.integerKeys != 0
        var counts = Counts()
        var pending = [Visit(number: database.root, depth: database.depth, lower: nil, upper: nil)]
        while let visit = pending.popLast() {
            try claim(visit.number, in: database)
            try read(visit.number)
            let place = "page \(visit.number) of \(database.name)"
            guard integer(0, bytes: 8) == visit.number else { throw Damage(description: "\(place) is numbered \(integer(0, bytes: 8))") }
            let kind = word(10) & Self.kindMask
            let expected = visit.depth > 1 ? Self.branchPage : Self.leafPage
            guard kind == expected else {
                throw Damage(description: "\(place) should be a \(visit.depth > 1 ? "branch" : "leaf") page but its flags are \(word(10))")
            }
            let lower = Int(word(12)), upper = Int(word(14))
            guard lower >= Self.headerSize, lower <= upper, upper <= pageSize, (lower - Self.headerSize) % 2 == 0, lower > Self.headerSize else {
                throw Damage(description: "\(place) has impossible bounds (lower \(lower), upper \(upper))")
            }
            let count = (lower - Self.headerSize) / 2
            var previous: [UInt8]? = nil
            var children: [Visit] = []
            for index in 0..<count {
                let node = Int(word(Self.headerSize + 2 * index))
                guard node >= upper, node + Self.nodeHeaderSize <= pageSize else {
                    throw Damage(description: "node \(index) of \(place) is outside the page (offset \(node))")
                }
                let lo = UInt64(word(node)), hi = UInt64(word(node + 2)), flags = word(node + 4), keySize = Int(word(node + 6))
                let keyStart = node + Self.nodeHeaderSize
                guard keyStart + keySize <= pageSize else { throw Damage(description: "the key of node \(index) of \(place) runs past the page") }
                let key = Array(page[keyStart..<(keyStart + keySize)])
                // A branch page's first key is a placeholder: its child holds everything below
                // the second key.
                if expected == Self.leafPage || index > 0 {
                    if integerKeys && keySize != 8 { throw Damage(description: "node \(index) of \(place) has a \(keySize)-byte integer key") }
                    if let low = previous ?? visit.lower, !Self.precedes(low, key, integerKeys: integerKeys, orEqual: previous == nil) {
                        throw Damage(description: "the keys of \(place) are out of order at node \(index)")
                    }
                    if let high = visit.upper, !Self.precedes(key, high, integerKeys: integerKeys, orEqual: false) {
                        throw Damage(description: "node \(index) of \(place) has a key beyond the bound of its branch")
                    }
                    previous = key
                }
                if expected == Self.branchPage {
                    let child = lo | hi << 16 | UInt64(flags) << 32
                    children.append(Visit(number: child, depth: visit.depth - 1, lower: index == 0 ? visit.lower : key, upper: nil))
                } else {
                    counts.entries += 1
                    let size = Int(lo | hi << 16)
                    if flags == Self.bigData {
                        guard keyStart + keySize + 8 <= pageSize else { throw Damage(description: "node \(index) of \(place) runs past the page") }
                        let first = integer(keyStart + keySize, bytes: 8)
                        counts.overflowPages += try checkOverflow(first, size: size, in: database)
                        try read(visit.number)
                    } else if flags == 0 {
                        guard keyStart + keySize + size <= pageSize else { throw Damage(description: "the data of node \(index) of \(place) runs past the page") }
                    } else {
                        throw Damage(description: "node \(index) of \(place) has flags \(flags), which this store never writes")
                    }
                }
            }
            if expected == Self.branchPage {
                counts.branchPages += 1
                // Each child's keys stay below the next child's first key (its separator).
                for index in children.indices {
                    let upper = index + 1 < children.count ? children[index + 1].lower : visit.upper
                    children[index] = Visit(number: children[index].number, depth: children[index].depth, lower: children[index].lower, upper: upper)
                }
                pending.append(contentsOf: children.reversed())
            } else {
                counts.leafPages += 1
            }
        }
        guard counts.branchPages == database.branchPages, counts.leafPages == database.leafPages,
              counts.overflowPages == database.overflowPages, counts.entries == database.entries else {
            throw Damage(description: "\(database.name) records \(database.branchPages) branch, \(database.leafPages) leaf and \(database.overflowPages) overflow pages and \(database.entries) entries, but holds \(counts.branchPages), \(counts.leafPages), \(counts.overflowPages) and \(counts.entries)")
        }
    }

    /// Checks the overflow pages starting at `first` that hold `size` bytes; returns their count.
    private mutating func checkOverflow(_ first: UInt64, size: Int, in database: Database) throws -> UInt64 {
        try read(first)
        let place = "overflow page \(first) of \(database.name)"
        guard integer(0, bytes: 8) == first, word(10) & Self.kindMask == Self.overflowPage else {
            throw Damage(description: "\(place) is not an overflow page")
        }
        let count = integer(12, bytes: 4)
        guard count > 0, count <= filePages, first <= filePages - count, size + Self.headerSize <= Int(count) * pageSize else {
            throw Damage(description: "\(place) records \(count) pages for \(size) bytes")
        }
        for number in first..<(first + count) { try claim(number, in: database) }
        return count
    }

    /// Marks page `number` as used, refusing one outside the environment or used twice.
    private mutating func claim(_ number: UInt64, in database: Database) throws {
        guard number < filePages, number <= lastPage else {
            throw Damage(description: "\(database.name) uses page \(number), past the end (\(filePages) pages in the file, last page \(lastPage))")
        }
        guard used.insert(number).inserted else { throw Damage(description: "page \(number) is used twice") }
    }

    /// Reads page `number` into `page`.
    private mutating func read(_ number: UInt64) throws {
        guard number < filePages else { throw Damage(description: "page \(number) is past the end of the file") }
        let size = pageSize
        let done = page.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, size, off_t(number) * off_t(size)) }
        guard done == size else { throw Damage(description: "page \(number) cannot be read") }
    }

    /// Whether `a` sorts before `b` (or equals it, with `orEqual`).
    private static func precedes(_ a: [UInt8], _ b: [UInt8], integerKeys: Bool, orEqual: Bool) -> Bool {
        if integerKeys && a.count == 8 && b.count == 8 {
            let x = a.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let y = b.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return orEqual ? x <= y : x < y
        }
        return orEqual ? !b.lexicographicallyPrecedes(a) : a.lexicographicallyPrecedes(b)
    }

    private func word(_ offset: Int) -> UInt16 {
        UInt16(page[offset]) | UInt16(page[offset + 1]) << 8
    }

    private func integer(_ offset: Int, bytes: Int) -> UInt64 {
        (0..<bytes).reduce(UInt64(0)) { $0 | UInt64(page[offset + $1]) << (8 * UInt64($1)) }
    }
}
