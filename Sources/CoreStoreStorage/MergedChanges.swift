/// A stored record replaced by a commit: the version that was stored, the version written, and
/// the properties whose value differs between them.
public struct RecordReplacement: Sendable, Hashable {
    /// The version stored before the commit.
    public var old: Record
    /// The version the commit wrote.
    public var new: Record
    /// Names of the attributes and relationships whose value differs between `old` and `new`.
    public var changedKeys: Set<String>

    /// Creates a replacement.
    public init(old: Record, new: Record, changedKeys: Set<String>) {
        self.old = old
        self.new = new
        self.changedKeys = changedKeys
    }

    /// The offset of ``new`` in a replacement's memory. `offset(of:)` answers `nil` only for a
    /// computed property or a type whose layout is hidden by library evolution; `new` is a
    /// stored property of a type built with its users, so it always has one.
    private static let newOffset = MemoryLayout<RecordReplacement>.offset(of: \.new)!

    /// The ``new`` record of the replacement at `replacement`, by address: for a loop over a
    /// commit's replacements in their array, where reading `new` by value copied the record
    /// (retaining and releasing its arrays) per replacement.
    package static func newRecord(at replacement: UnsafePointer<RecordReplacement>) -> UnsafePointer<Record> {
        UnsafeRawPointer(replacement).advanced(by: newOffset).assumingMemoryBound(to: Record.self)
    }
}

/// A change set resolved against what is stored: whole records to write, with the versions they
/// replace. ``ChangeMerger`` produces it inside a store's write; the store writes it as it is and
/// returns it in ``CommitInfo/changes``.
///
/// Every identifier is permanent. An update that changes nothing after merging is left out; an
/// update may also appear that the change set did not name, when keeping an inverse relationship
/// consistent changed a record (see ``ChangeMerger``).
public struct MergedChanges: Sendable, Hashable {
    /// New records, as written: one per insert of the change set, in its order (the framework
    /// pairs each with the object it inserted, and takes its permanent identifier from it).
    public var inserts: [Record]
    /// Stored records replaced by new versions.
    public var updates: [RecordReplacement]
    /// Removed records, as they were stored.
    public var deletes: [Record]
    /// Removed records that were not read: only a store that accepts them gets any, when the
    /// change set did not want them back (see
    /// ``ChangeMerger/merge(_:schema:basesAreStored:acceptsUnreadDeletes:load:)``). The store
    /// removes them too.
    public var unreadDeletes: [RecordID]

    /// Creates merged changes.
    public init(inserts: [Record] = [], updates: [RecordReplacement] = [], deletes: [Record] = [], unreadDeletes: [RecordID] = []) {
        self.inserts = inserts
        self.updates = updates
        self.deletes = deletes
        self.unreadDeletes = unreadDeletes
    }

    /// Whether no record changes.
    public var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty && unreadDeletes.isEmpty }

    /// The identifiers of every removed record: those of ``deletes``, then ``unreadDeletes``.
    public var deletedIDs: [RecordID] { deletes.map(\.id) + unreadDeletes }
}
