import Synchronization

/// The record keys of objects transactions insert before they commit: negative, handed out by
/// one counter for the whole process (counting down from -1), so that no two contexts ever give
/// the same key. An uncommitted object's identifier therefore names that object alone: another
/// transaction's `fetchExisting` answers `nil` for it instead of finding its own insert of the
/// same number.
enum TemporaryKeys {
    private static let next = Atomic<Int64>(-1)

    /// The key the next insert will take; every key taken later is this one or lower.
    static var upcoming: Int64 {
        next.load(ordering: .relaxed)
    }

    /// Takes a key no context has had.
    static func take() -> Int64 {
        next.subtract(1, ordering: .relaxed).oldValue
    }
}
