import Foundation

/// The ``ValueMembership`` of the last few `IN` lists one evaluator tested, so that a scan
/// testing the same comparison on every record builds the membership once, not per record.
///
/// A list is recognised by the identity of its array storage (base address and count). Each
/// entry retains the array it was built from, so that storage cannot be freed, and its address
/// reused by another list, while the entry exists; an array's storage is never mutated in
/// place while shared, so the same address and count mean the same members. Shared by one
/// evaluator's copies; lock-protected.
final class MembershipCache: @unchecked Sendable {
    /// One cached list.
    private struct Entry {
        /// The list, retained so that its storage stays where it is.
        let members: [Value]
        /// Where the list's storage starts.
        let address: UnsafeRawPointer
        /// The membership built from the list.
        let membership: ValueMembership
    }

    /// Lists with fewer members are scanned linearly (hashing would not pay off).
    static let minimumCount = 16
    /// How many lists are kept; a request rarely has more than one large `IN`.
    private static let capacity = 4

    private let lock = NSLock()
    /// The cached lists, most recently built last.
    private var entries: [Entry] = []

    /// The membership of `members`, built on first use; `nil` for a list too short to hash.
    func membership(_ members: [Value]) -> ValueMembership? {
        guard members.count >= Self.minimumCount,
              let address = members.withUnsafeBufferPointer({ $0.baseAddress.map(UnsafeRawPointer.init) }) else { return nil }
        lock.lock()
        defer { lock.unlock() }
        if let entry = entries.first(where: { $0.address == address && $0.members.count == members.count }) {
            return entry.membership
        }
        let membership = ValueMembership(members)
        if entries.count >= Self.capacity { entries.removeFirst() }
        entries.append(Entry(members: members, address: address, membership: membership))
        return membership
    }
}
