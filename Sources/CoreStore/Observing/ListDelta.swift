import CoreStoreStorage

/// What one commit means for a monitored list, decided on the committing thread (where the
/// stores show exactly that commit) and applied later on the delivery queue.
struct ListDelta: Sendable {
    /// The examined objects that belong to the list after the commit, with their sort values.
    var matches: [ObjectID: ListEntry] = [:]
    /// The committing transaction's `sourceIdentifier`.
    var sourceIdentifier = SourceIdentifierBox.none
    /// The objects whose membership or position the commit may have changed; every other
    /// member is unaffected. Ignored when ``isComplete``.
    var examined: Set<ObjectID> = []
    /// The objects whose stored values the commit changed (members among them are reported as
    /// updated or moved).
    var updated: Set<ObjectID> = []
    /// The committed values of the examined objects (the last ones for deleted objects), to
    /// hand observers an object even when a later commit deleted it before delivery.
    var records: [ObjectID: Record] = [:]
    /// Whether ``matches`` lists every member after the commit (objects not in it leave).
    var isComplete = false
    /// The read-only context's objects for the members whose records the delta carries, made
    /// from those records when the commit was merged: delivery needs no read of storage.
    var liveObjects = LiveObjects()

    /// Whether applying the delta cannot change anything.
    var isEmpty: Bool { !isComplete && examined.isEmpty }
}

/// Objects of the read-only context handed to the delivery queue. Such objects may be read on
/// any thread (their values are guarded by their own lock), which the compiler cannot know.
struct LiveObjects: @unchecked Sendable {
    var byID: [ObjectID: CoreStoreObject] = [:]
}
