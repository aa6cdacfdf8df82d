/// Copies of the short texts and blobs bound to one statement for its current run, which
/// SQLite then reads in place (`SQLITE_STATIC`) instead of copying each into a buffer of its
/// own (a `malloc` and a `free` per value, behind SQLite's allocation mutex).
///
/// The copies live in chunks that are never moved while a run uses them: a value bound earlier
/// in the run stays where SQLite was told it is. ``startRun()`` recycles the chunks for the
/// next run, whose bindings replace every earlier one before the statement steps again.
/// Values longer than ``largestCopied`` are not copied here (SQLite copies those itself), so a
/// statement keeps at most a few small chunks.
///
/// Not thread-safe: owned by one statement, used by the thread that holds its connection.
final class SQLiteBoundBytes {
    /// The longest value copied here.
    static let largestCopied = 1_024
    /// The size of each chunk.
    static let chunkSize = 8_192

    // One thread at a time, and no method re-enters another: the runtime exclusivity checks
    // (one per bound value) are switched off.
    @exclusivity(unchecked) private var chunks: [UnsafeMutableRawPointer] = []
    /// The chunk being filled, an index into ``chunks``.
    @exclusivity(unchecked) private var current = 0
    /// How many bytes of the current chunk are taken.
    @exclusivity(unchecked) private var used = 0

    deinit {
        for chunk in chunks { chunk.deallocate() }
    }

    /// Makes every chunk free again: call before binding a new run's values.
    func startRun() {
        current = 0
        used = 0
    }

    /// A copy of `bytes` that stays in place until the next ``startRun()``; `nil` when `bytes`
    /// is longer than ``largestCopied`` (bind it with `SQLITE_TRANSIENT`) or empty.
    func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawPointer? {
        guard let source = bytes.baseAddress, !bytes.isEmpty, bytes.count <= Self.largestCopied else { return nil }
        if chunks.isEmpty || used + bytes.count > Self.chunkSize {
            if !chunks.isEmpty { current += 1 }
            if current == chunks.count {
                chunks.append(.allocate(byteCount: Self.chunkSize, alignment: 8))
            }
            used = 0
        }
        let destination = chunks[current] + used
        destination.copyMemory(from: source, byteCount: bytes.count)
        used += bytes.count
        return UnsafeRawPointer(destination)
    }
}
