/// A set of record keys of one store whose values the asker of a fetch already holds: the keys
/// of the objects a context has made. A backend may answer such a record with its identifier
/// alone (see ``FetchRequest/knownRecords``), sparing the decoding of values nobody will read.
///
/// A value type with copy-on-write pages: a copy handed to a reader on another thread is a
/// snapshot (an array retained, nothing copied), and the owner's next change to a page that
/// snapshot still shares copies that page alone. Only keys in `0 ..< ``keyLimit``` are
/// tracked; ``contains(_:)`` is `false` for the others, so their records are read in full.
///
/// Every hint compares equal and hashes alike: it says what may be left out, never what the
/// answer is, so two requests that differ only in their hints are the same request.
public struct KnownRecordKeys: Sendable, Hashable {
    /// Keys at or beyond this are not tracked (the page table stays at most 32 KiB).
    public static let keyLimit: Int64 = 1 << 27

    /// How many keys one page covers (`1 << pageShift`).
    private static let pageShift = 15
    /// The number of 64-bit words of one page.
    private static let wordsPerPage = (1 << pageShift) / 64

    /// One page of bits. Shared between copies of the set and written only while one array,
    /// itself not shared, holds it (see ``insert(_:)``): so no reader ever sees it change.
    private final class Page: @unchecked Sendable {
        let words: UnsafeMutablePointer<UInt64>

        init() {
            words = .allocate(capacity: KnownRecordKeys.wordsPerPage)
            words.initialize(repeating: 0, count: KnownRecordKeys.wordsPerPage)
        }

        init(copying other: Page) {
            words = .allocate(capacity: KnownRecordKeys.wordsPerPage)
            words.initialize(from: other.words, count: KnownRecordKeys.wordsPerPage)
        }

        deinit { words.deallocate() }
    }

    /// The pages by number; `nil` for a page no key was ever inserted in.
    private var pages: [Page?] = []
    /// The number of keys in the set.
    public private(set) var count = 0

    /// An empty set.
    public init() {}

    /// Whether the set holds no key: a request with such a hint is an ordinary one.
    public var isEmpty: Bool { count == 0 }

    /// Whether `key` is in the set.
    @inline(__always)
    public func contains(_ key: Int64) -> Bool {
        guard key >= 0, key < Self.keyLimit else { return false }
        let page = Int(truncatingIfNeeded: key >> Self.pageShift)
        guard page < pages.count, let words = pages[page]?.words else { return false }
        let bit = Int(truncatingIfNeeded: key) & ((1 << Self.pageShift) - 1)
        return words[bit >> 6] & (1 << UInt64(bit & 63)) != 0
    }

    /// Adds `key` (a key beyond the tracked range is ignored).
    public mutating func insert(_ key: Int64) {
        guard key >= 0, key < Self.keyLimit else { return }
        set(key, in: writableWords(ofPage: Int(truncatingIfNeeded: key >> Self.pageShift)))
    }

    /// Adds every key of `keys` (keys beyond the tracked range are ignored): what
    /// ``insert(_:)`` does for each, with the page found and made writable once per run of
    /// keys on one page instead of once per key.
    public mutating func insert(contentsOf keys: UnsafeBufferPointer<Int64>) {
        var current: (page: Int, words: UnsafeMutablePointer<UInt64>)?
        for key in keys where key >= 0 && key < Self.keyLimit {
            let page = Int(truncatingIfNeeded: key >> Self.pageShift)
            if current?.page != page { current = (page, writableWords(ofPage: page)) }
            set(key, in: current.unsafelyUnwrapped.words)
        }
    }

    /// The words of page `page`, made (with the pages before it) when missing, and copied
    /// first when a snapshot shares it.
    private mutating func writableWords(ofPage page: Int) -> UnsafeMutablePointer<UInt64> {
        if page >= pages.count {
            pages.append(contentsOf: repeatElement(nil, count: page + 1 - pages.count))
        }
        // Reaching the element for writing first makes the array unique (a snapshot keeps the
        // old one); a page the old array still holds is then shared, and copied here.
        if pages[page] == nil {
            pages[page] = Page()
        } else if !isKnownUniquelyReferenced(&pages[page]) {
            pages[page] = Page(copying: pages[page].unsafelyUnwrapped)
        }
        return pages[page].unsafelyUnwrapped.words
    }

    /// Sets `key`'s bit in its page's `words`, counting it when it was clear.
    @inline(__always)
    private mutating func set(_ key: Int64, in words: UnsafeMutablePointer<UInt64>) {
        let bit = Int(truncatingIfNeeded: key) & ((1 << Self.pageShift) - 1)
        let mask: UInt64 = 1 << UInt64(bit & 63)
        if words[bit >> 6] & mask == 0 {
            words[bit >> 6] |= mask
            count += 1
        }
    }

    /// Removes `key`.
    public mutating func remove(_ key: Int64) {
        guard contains(key) else { return }
        let page = Int(truncatingIfNeeded: key >> Self.pageShift)
        if !isKnownUniquelyReferenced(&pages[page]) {
            pages[page] = Page(copying: pages[page].unsafelyUnwrapped)
        }
        let bit = Int(truncatingIfNeeded: key) & ((1 << Self.pageShift) - 1)
        pages[page].unsafelyUnwrapped.words[bit >> 6] &= ~(1 << UInt64(bit & 63))
        count -= 1
    }

    /// Hints compare equal (see the type's description).
    public static func == (lhs: KnownRecordKeys, rhs: KnownRecordKeys) -> Bool { true }

    /// Hints add nothing to a hash (see the type's description).
    public func hash(into hasher: inout Hasher) {}
}
