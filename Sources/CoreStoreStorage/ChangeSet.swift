/// One record changed by a commit: the writer's view of it, which of its properties the writer
/// changed, and the stored version the writer started from.
///
/// A store applies an update **property by property** (see ``ChangeMerger``): only the keys in
/// ``changedKeys`` are written, every other property keeps the value stored at commit time, and a
/// changed to-many relationship is applied as the destinations added and removed since ``base``.
/// So two writers that change different properties of one record both keep their change, and
/// when both change the same key the later commit wins.
public struct RecordUpdate: Sendable, Hashable {
    /// The writer's whole view of the record; only its ``changedKeys`` are applied.
    public var record: Record
    /// Names of the attributes and relationships the writer changed.
    public var changedKeys: Set<String>
    /// The stored version the writer's changes were made against, when known. A changed to-many
    /// relationship is merged as additions and removals relative to it; without it the writer's
    /// list replaces the stored one.
    public var base: Record?

    /// Creates an update of the `changedKeys` of `record`, made against `base`.
    public init(record: Record, changedKeys: Set<String>, base: Record? = nil) {
        self.record = record
        self.changedKeys = changedKeys
        self.base = base
    }
}

/// Everything one commit changes in one store; applied all or nothing by
/// ``StorageInterface/write(_:)``.
public struct ChangeSet: Sendable, Hashable {
    /// New records, usually with temporary identifiers.
    public var inserts: [Record]
    /// Changed records, whole, with their changed keys.
    public var updates: [RecordUpdate]
    /// Identifiers of removed records.
    public var deletes: [RecordID]
    /// When set, replaces the store's stored metadata in the same atomic write.
    public var metadata: StoredMetadata?
    /// The store's commit sequence when the writer started reading, if no commit of the store
    /// could have escaped it since. When the store's sequence is still this one, every
    /// ``RecordUpdate/base`` is exactly what is stored, and the store need not read the updated
    /// records again to merge (see ``ChangeSet/prepareCommit(schema:counters:acceptsUnreadDeletes:load:)``).
    public var baseSequence: UInt64?
    /// The versions of deleted records the writer last read, when it knows them. Like an
    /// update's ``RecordUpdate/base``, used only while ``baseSequence`` is the store's sequence:
    /// then they are what is stored, and the store need not read the deleted records to merge.
    public var deleteBases: [Record]
    /// Whether the writer needs every deleted record back, as stored, in
    /// ``MergedChanges/deletes`` (its observers hand out the last values of deleted objects).
    /// When `false`, a store may leave unread the deleted records of entities without
    /// relationships (see ``MergedChanges/unreadDeletes``). `true` unless the writer sets it.
    public var returnsDeletedRecords = true

    /// Creates a change set.
    public init(
        inserts: [Record] = [], updates: [RecordUpdate] = [], deletes: [RecordID] = [], metadata: StoredMetadata? = nil,
        baseSequence: UInt64? = nil, deleteBases: [Record] = []
    ) {
        self.inserts = inserts
        self.updates = updates
        self.deletes = deletes
        self.metadata = metadata
        self.baseSequence = baseSequence
        self.deleteBases = deleteBases
    }

    /// Whether the change set changes no record.
    public var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty }

    /// Replaces every temporary identifier (in inserts and in every relationship of every
    /// record) with a permanent one, numbered upwards from `firstKey`.
    ///
    /// Stores call this inside their write, with their own key counter, so that the numbering is
    /// atomic with the data. Returns the rewritten change set and the temporary → permanent map.
    public func assigningPermanentIDs(startingAt firstKey: Int64) -> (ChangeSet, [RecordID: RecordID]) {
        let (result, assignment) = assigningPermanentKeys(startingAt: firstKey)
        return (result, assignment.dictionary)
    }

    /// ``assigningPermanentIDs(startingAt:)`` with the assignment in its compact form: no map
    /// is built unless a relationship or an update refers to a temporary identifier.
    func assigningPermanentKeys(startingAt firstKey: Int64) -> (ChangeSet, PermanentIDAssignment) {
        var assignment = PermanentIDAssignment(firstKey: firstKey, expectedCount: inserts.count)
        var result = self
        // The inserts get their keys in one pass; only the key changes (the entity name, a
        // reference, is not copied).
        for i in result.inserts.indices where result.inserts[i].id.isTemporary {
            result.inserts[i].id.key = assignment.number(result.inserts[i].id)
        }
        if assignment.count == 0 { return (self, assignment) }
        let refersToNewRecords = !updates.isEmpty
            || result.inserts.contains { $0.relationships.contains { $0.contains(where: \.isTemporary) } }
        guard refersToNewRecords else { return (result, assignment) }
        let permanent = assignment.keyMap()
        func rewriteRelationships(_ record: inout Record) {
            for i in record.relationships.indices where record.relationships[i].contains(where: \.isTemporary) {
                record.relationships[i] = record.relationships[i].map { $0.isTemporary ? permanent[$0.key] ?? $0 : $0 }
            }
        }
        for i in result.inserts.indices { rewriteRelationships(&result.inserts[i]) }
        result.updates = updates.map { update in
            var record = update.record
            if record.id.isTemporary, let id = permanent[record.id.key] { record.id = id }
            rewriteRelationships(&record)
            return RecordUpdate(record: record, changedKeys: update.changedKeys, base: update.base)
        }
        return (result, assignment)
    }

    /// The inserts as a store that gave them `permanentIDs` wrote them: each with its permanent
    /// identifier, and relationships to other inserts rewritten the same way. The framework's
    /// stand-in for ``MergedChanges/inserts`` when a store reports fewer records than it
    /// inserted (short of the contract).
    package func insertsAsWritten(permanentIDs: [RecordID: RecordID]) -> [Record] {
        inserts.map { Self.rewritten($0, permanentIDs: permanentIDs) }
    }

    /// What the change set writes, as ``MergedChanges``, for a store that did not say what it
    /// wrote (short of the contract): its inserts and updates with permanent identifiers, its
    /// deletes (as read, where their bases came with the change set). Records a store changed
    /// to keep inverses consistent are not among them.
    package func changesAsWritten(permanentIDs: [RecordID: RecordID]) -> MergedChanges {
        let updates = updates.map { update in
            let new = Self.rewritten(update.record, permanentIDs: permanentIDs)
            return RecordReplacement(old: update.base ?? new, new: new, changedKeys: update.changedKeys)
        }
        let deleted = Set(deletes)
        let read = deleteBases.filter { deleted.contains($0.id) }
        let readIDs = Set(read.map(\.id))
        return MergedChanges(
            inserts: insertsAsWritten(permanentIDs: permanentIDs), updates: updates,
            deletes: read, unreadDeletes: deletes.filter { !readIDs.contains($0) }
        )
    }

    private static func rewritten(_ record: Record, permanentIDs: [RecordID: RecordID]) -> Record {
        var record = record
        record.id = permanentIDs[record.id] ?? record.id
        for i in record.relationships.indices where record.relationships[i].contains(where: \.isTemporary) {
            record.relationships[i] = record.relationships[i].map { $0.isTemporary ? permanentIDs[$0] ?? $0 : $0 }
        }
        return record
    }
}

/// What a successful ``StorageInterface/write(_:)`` reports.
public struct CommitInfo: Sendable, Hashable {
    /// A number that strictly increases with every commit of the store (an empty change set
    /// included), also across closing and reopening a persistent store.
    public var sequence: UInt64
    /// The permanent identifier given to each temporary identifier of the change set.
    ///
    /// A commit made by ``ChangeSet/prepareCommit(schema:counters:acceptsUnreadDeletes:load:)``
    /// keeps the assignment in a compact form and builds this dictionary on each read: read it
    /// once, not once per identifier. (Its inserts, in ``changes``, carry their permanent
    /// identifiers in change-set order.)
    public var permanentIDs: [RecordID: RecordID] {
        get { assignment?.dictionary ?? givenPermanentIDs }
        set {
            givenPermanentIDs = newValue
            assignment = nil
        }
    }
    /// What the commit actually wrote, merged with what was stored: the records as they are
    /// now, with the keys that changed (see ``ChangeMerger``). The framework hands these to its
    /// read context and to monitors.
    public var changes: MergedChanges {
        didSet { reportsChanges = true }
    }
    /// Whether the store gave ``changes`` (at creation or since).
    package private(set) var reportsChanges = true
    /// The map given at creation or set since (empty while ``assignment`` stands for it).
    private var givenPermanentIDs: [RecordID: RecordID]
    /// The assignment the commit made, when ``permanentIDs`` was not given as a map.
    private var assignment: PermanentIDAssignment?

    /// Creates commit info that says what the commit wrote.
    public init(sequence: UInt64, permanentIDs: [RecordID: RecordID], changes: MergedChanges) {
        self.sequence = sequence
        self.givenPermanentIDs = permanentIDs
        self.assignment = nil
        self.changes = changes
    }

    /// Creates commit info that does not say what the commit wrote (short of the contract):
    /// the framework then reads the inserted and updated records back (or takes them from the
    /// change set), without what the store changed to keep inverses consistent. Setting any
    /// part of ``changes`` later says it (and only the inserts, when too few, are filled in).
    /// Equality ignores whether the changes were said.
    public init(sequence: UInt64, permanentIDs: [RecordID: RecordID]) {
        self.init(sequence: sequence, permanentIDs: permanentIDs, changes: MergedChanges())
        reportsChanges = false
    }

    /// Creates commit info whose permanent identifiers are `assignment`'s.
    init(sequence: UInt64, assignment: PermanentIDAssignment, changes: MergedChanges) {
        self.sequence = sequence
        self.givenPermanentIDs = [:]
        self.assignment = assignment
        self.changes = changes
    }

    /// Commit infos are equal when their sequences, permanent identifiers and changes are.
    public static func == (lhs: CommitInfo, rhs: CommitInfo) -> Bool {
        lhs.sequence == rhs.sequence && lhs.changes == rhs.changes && lhs.permanentIDs == rhs.permanentIDs
    }

    /// Hashes the sequence, the permanent identifiers and the changes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(sequence)
        hasher.combine(permanentIDs)
        hasher.combine(changes)
    }
}

/// The metadata a store keeps about its data.
public struct StoredMetadata: Sendable, Hashable {
    /// The model version the data was written with.
    public var modelVersion: String
    /// ``StoreSchema/schemaHash`` of that model.
    public var schemaHash: String
    /// Free-form metadata the application or the framework keeps with the store.
    public var userInfo: [String: String]

    /// Creates metadata.
    public init(modelVersion: String, schemaHash: String, userInfo: [String: String] = [:]) {
        self.modelVersion = modelVersion
        self.schemaHash = schemaHash
        self.userInfo = userInfo
    }
}
