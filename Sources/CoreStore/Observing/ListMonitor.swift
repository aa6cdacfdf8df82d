import Foundation
import CoreStoreStorage

/// A live, ordered, optionally sectioned list of the objects that match a fetch, kept up to
/// date commit by commit, with observers told exactly what changed.
///
/// ```swift
/// let monitor = try dataStack.monitorList(From<Person>().where(\.$age > 30).orderBy(.ascending(\.$name)))
/// monitor.addObserver(self)           // a ListObserver, ListObjectObserver or ListSectionObserver
/// let first = monitor[0]              // the first object, or nil when the list is empty
/// ```
/// Each commit is examined on the committing thread: only the objects it inserted, updated or
/// deleted are evaluated against the filter and placed by binary search on the sort keys (a
/// commit of k objects costs O(k log n) on a list of n); a filter whose key paths read other
/// entities is evaluated again for every candidate when one of those entities changes.
/// Observers hear about it on the delivery queue (the main queue unless the monitor was
/// created with another serial queue), and only when the list really changed. Observers are
/// held weakly.
///
/// With a `fetchOffset` or `fetchLimit` (`Tweak`), the monitor shows the page `fetchAll` would
/// return and reports how that page changes (see `ListWindow`'s rules in OBSERVING.md).
///
/// Objects handed out are the `DataStack`'s read-only objects. Read the monitor from any
/// thread; during a commit's callbacks it already shows the new list.
public final class ListMonitor<O: CoreStoreObject>: @unchecked Sendable, CustomDebugStringConvertible {
    /// The stack whose commits the monitor follows.
    public let dataStack: DataStack
    /// The section key and index-title transformer, for sectioned lists.
    public let sectionBy: SectionBy<O>?
    let from: From<O>
    let delivery: ObservationDelivery
    /// Kept alive here: the delivery only holds its queue weakly.
    let deliveryQueue: DispatchQueue
    private let lock = NSRecursiveLock()
    /// Guarded by the stack's commit lock.
    private var query: ListQuery
    /// Guarded by `lock`.
    private var state: ListState
    /// Whether the last attempt to read the whole list again failed: until one succeeds, every
    /// commit reads it whole (under `lock`).
    private var mustReadWholeList = false
    /// The whole list behind ``state`` when the request has a `fetchOffset` or `fetchLimit`.
    private var window: ListWindow?
    private var observers: [ListObserverBox<O>] = []
    private var sinks: [UUID: ListChangeSink] = [:]
    private var pendingRefetches = 0

    convenience init(dataStack: DataStack, from: From<O>, specification: CoreStoreFetchRequest, sectionBy: SectionBy<O>?, deliveryQueue: DispatchQueue) throws(CoreStoreError) {
        let query = try ListQuery(specification, sectionKey: sectionBy?.sectionKeyPath, stack: dataStack)
        try self.init(dataStack: dataStack, from: from, query: query, sectionBy: sectionBy, deliveryQueue: deliveryQueue)
    }

    /// A monitor of a validated query: reads the list and starts following commits.
    init(dataStack: DataStack, from: From<O>, query: ListQuery, sectionBy: SectionBy<O>?, deliveryQueue: DispatchQueue) throws(CoreStoreError) {
        self.dataStack = dataStack
        self.sectionBy = sectionBy
        self.from = from
        self.delivery = ObservationDelivery.on(deliveryQueue)
        self.deliveryQueue = deliveryQueue
        self.query = query
        self.state = ListState(ordering: query.ordering, isSectioned: sectionBy != nil)
        let isSectioned = sectionBy != nil
        try dataStack.addCommitObserver(self) { () throws(CoreStoreError) in
            let entries = try query.currentEntries(in: dataStack.mainContext)
            lock.withLock { (state, window) = query.makeState(entries: entries, isSectioned: isSectioned) }
        }
    }

    deinit {
        dataStack.removeCommitObserver(ObjectIdentifier(self))
        for sink in sinks.values { sink.finish() }
    }

    // MARK: Observers

    /// Adds an observer told before and after each change and refetch. Held weakly.
    public func addObserver<U: ListObserver>(_ observer: U) where U.ListEntityType == O {
        add(ListObserverBox(observer))
    }

    /// Adds an observer also told about each inserted, deleted, moved and updated object.
    public func addObserver<U: ListObjectObserver>(_ observer: U) where U.ListEntityType == O {
        add(ListObserverBox(objectObserver: observer))
    }

    /// Adds an observer also told about inserted and deleted sections.
    public func addObserver<U: ListSectionObserver>(_ observer: U) where U.ListEntityType == O {
        add(ListObserverBox(sectionObserver: observer))
    }

    /// Removes an observer; it hears nothing more.
    public func removeObserver(_ observer: AnyObject) {
        lock.withLock { observers.removeAll { $0.observer == nil || $0.observer === observer } }
    }

    private func add(_ box: ListObserverBox<O>) {
        lock.withLock {
            observers.removeAll { $0.observer == nil || $0.observer === box.observer }
            observers.append(box)
        }
    }

    /// The changes of each commit that changes the list, as they are delivered (refetches
    /// arrive as a value whose ``ListChanges/isRefetch`` is `true`). Ends when the monitor goes
    /// away; cancelling the iterating task removes the subscription.
    public var changes: AsyncStream<ListChanges> {
        AsyncStream { continuation in
            let token = addSink(ListChangeSink(send: { changes, _ in continuation.yield(changes) }, finish: { continuation.finish() }))
            continuation.onTermination = { [weak self] _ in self?.removeSink(token) }
        }
    }

    /// Adds a subscriber to every delivered change batch.
    func addSink(_ sink: ListChangeSink) -> UUID {
        let token = UUID()
        lock.withLock { sinks[token] = sink }
        return token
    }

    func removeSink(_ token: UUID) {
        lock.withLock { _ = sinks.removeValue(forKey: token) }
    }

    /// How many async sequences are subscribed (for tests).
    var subscriberCount: Int {
        lock.withLock { sinks.count }
    }

    // MARK: Refetching

    /// Whether a refetch was requested and not delivered yet.
    public var isPendingRefetch: Bool {
        lock.withLock { pendingRefetches > 0 }
    }

    /// Replaces the filter, order and tweaks (the `From` and sections stay); observers get
    /// `listMonitorWillRefetch` and `listMonitorDidRefetch` around the switch, with
    /// `sourceIdentifier`.
    public func refetch(_ fetchClauses: FetchClause..., sourceIdentifier: Any? = nil) throws {
        try refetch(fetchClauses, sourceIdentifier: sourceIdentifier)
    }

    /// Replaces the filter, order and tweaks (the `From` and sections stay).
    public func refetch(_ fetchClauses: [FetchClause], sourceIdentifier: Any? = nil) throws {
        let specification = from.specification(fetchClauses)
        let sectionKey = sectionBy?.sectionKeyPath
        let stack = dataStack, source = SourceIdentifierBox(value: sourceIdentifier)
        try stack.withCommitsPaused { () throws(CoreStoreError) in
            let query = try ListQuery(specification, sectionKey: sectionKey, stack: stack)
            let entries = try query.currentEntries(in: stack.mainContext)
            self.query = query
            lock.withLock { pendingRefetches += 1 }
            let isSectioned = sectionKey != nil
            delivery.schedule { [weak self] in
                self?.deliverRefetch(query.makeState(entries: entries, isSectioned: isSectioned), source: source)
            }
        }
    }

    // MARK: Delivery

    private func deliverChanges(_ delta: ListDelta) {
        let changes = lock.withLock {
            guard window != nil else { return state.apply(delta) }
            return state.apply(window!.visibleDelta(for: delta))
        }
        if changes.isEmpty { return }
        let (observers, sinks) = lock.withLock { (self.observers, Array(self.sinks.values)) }
        let context = dataStack.mainContext
        // One read for every live object the callbacks need; deleted ones from their last values.
        let reported = changes.insertedObjects.map(\.objectID) + changes.movedObjects.map(\.objectID) + changes.updatedObjects.map(\.objectID)
        var live: [ObjectID: O] = [:]
        var missing: [ObjectID] = []
        for id in reported {
            if let object = delta.liveObjects.byID[id] as? O, !object.cs_isDeleted() { live[id] = object } else { missing.append(id) }
        }
        for object in objects(for: missing) { if let id = object.cs_id() { live[id] = object } }
        func object(_ id: ObjectID) -> O? {
            live[id] ?? context.observedObject(for: id, lastKnown: delta.records[id]) as? O
        }
        let source = delta.sourceIdentifier.value
        for box in observers { box.willChange?(self, source) }
        for change in changes.deletedObjects {
            guard let o = object(change.objectID) else { continue }
            for box in observers { box.deleteObject?(self, o, change.indexPath, source) }
        }
        for change in changes.deletedSections {
            let info = SectionInfo(name: change.name, indexTitle: sectionBy?.sectionIndexTransformer(change.name), numberOfObjects: 0, load: { [] })
            for box in observers { box.deleteSection?(self, info, change.sectionIndex) }
        }
        for change in changes.insertedSections {
            guard let info = sectionInfo(at: change.sectionIndex) else { continue }
            for box in observers { box.insertSection?(self, info, change.sectionIndex) }
        }
        for change in changes.insertedObjects {
            guard let o = object(change.objectID) else { continue }
            for box in observers { box.insertObject?(self, o, change.indexPath, source) }
        }
        for move in changes.movedObjects {
            guard let o = object(move.objectID) else { continue }
            for box in observers { box.moveObject?(self, o, move.fromIndexPath, move.toIndexPath, source) }
        }
        for change in changes.updatedObjects {
            guard let o = object(change.objectID) else { continue }
            for box in observers { box.updateObject?(self, o, change.indexPath, source) }
        }
        for box in observers { box.didChange?(self, source) }
        for sink in sinks { sink.send(changes, delta.sourceIdentifier) }
    }

    private func deliverRefetch(_ newState: (ListState, ListWindow?), source: SourceIdentifierBox) {
        let observers = lock.withLock { self.observers }
        for box in observers { box.willRefetch?(self, source.value) }
        let sinks = lock.withLock {
            (state, window) = newState
            pendingRefetches -= 1
            return Array(self.sinks.values)
        }
        for box in observers { box.didRefetch?(self, source.value) }
        var changes = ListChanges()
        changes.isRefetch = true
        for sink in sinks { sink.send(changes, source) }
    }

    // MARK: Reading the state

    /// Runs `body` on the current list.
    func withState<T>(_ body: (ListState) -> T) -> T {
        lock.withLock { body(state) }
    }

    /// The stack's objects for `ids`, in order, skipping any that no longer exist.
    func objects(for ids: [ObjectID]) -> [O] {
        let context = dataStack.mainContext
        var byStore: [UInt64: [RecordID]] = [:]
        for id in ids { byStore[id.storeID, default: []].append(id.recordID) }
        var found: [ObjectID: O] = [:]
        for (storeID, recordIDs) in byStore {
            guard let store = dataStack.store(withID: storeID) else { continue }
            for object in context.objects(for: recordIDs, in: store) {
                if let typed = object as? O, let id = typed.cs_id() { found[id] = typed }
            }
        }
        return ids.compactMap { found[$0] }
    }

    /// The entity, section key and size.
    public var debugDescription: String {
        let (count, sections) = withState { ($0.entries.count, $0.sections.count) }
        return "ListMonitor<\(O.self)>(\(count) objects in \(sections) sections\(sectionBy.map { ", sectioned by '\($0.sectionKeyPath)'" } ?? ""))"
    }
}

extension ListMonitor: CommitObserver {
    func stackDidCommit(_ commits: [StoreCommit]) -> ObservationDelivery? {
        if lock.withLock({ mustReadWholeList }) { return stackDidRefresh(commits) }
        var delta: ListDelta
        do {
            delta = try query.delta(for: commits, context: dataStack.mainContext)
        } catch {
            // Keeping the old list would leave it wrong for good (later commits are worked out
            // against it): read it whole instead, as after a refresh.
            _ = Log.error(error, "A list monitor of \(O.self) could not work out what a commit changed; it reads its whole list again.")
            return stackDidRefresh(commits)
        }
        if delta.isEmpty { return nil }
        delta.sourceIdentifier = commits.first?.sourceIdentifier ?? .none
        // The members the delta carries records for: the only ones it can report as inserted,
        // moved or updated (after a refetch, others are read at delivery).
        var members: [ObjectID: Record] = [:]
        for id in delta.matches.keys { if let record = delta.records[id] { members[id] = record } }
        delta.liveObjects.byID = dataStack.mainContext.objects(forMerged: members)
        delivery.schedule { [weak self] in self?.deliverChanges(delta) }
        return delivery
    }

    /// Storage may have changed beyond what the stack's objects show: the whole list is read
    /// again and compared with what the monitor shows (objects that changed in place are
    /// reported updated when the stack held them).
    func stackDidRefresh(_ commits: [StoreCommit]) -> ObservationDelivery? {
        var delta = ListDelta(isComplete: true)
        do {
            for entry in try query.currentEntries(in: dataStack.mainContext) { delta.matches[entry.id] = entry }
        } catch {
            _ = Log.error(error, "A list monitor of \(O.self) could not read its list again; it keeps its previous list and reads it again at the next commit.")
            lock.withLock { mustReadWholeList = true }
            return nil
        }
        lock.withLock { mustReadWholeList = false }
        for commit in commits {
            for record in commit.updated { delta.updated.insert(ObjectID(storeID: commit.store.id, recordID: record.id)) }
            for (id, record) in zip(commit.deleted, commit.deletedRecords) { delta.records[ObjectID(storeID: commit.store.id, recordID: id)] = record }
        }
        // Members that leave without the stack ever having held them are handed to observers
        // with what the list knew of them.
        let leaving = lock.withLock { state.entries.filter { delta.matches[$0.id] == nil && delta.records[$0.id] == nil } }
        for entry in leaving { delta.records[entry.id] = query.lastKnownRecord(of: entry) }
        delivery.schedule { [weak self] in self?.deliverChanges(delta) }
        return delivery
    }
}

/// A subscriber to a monitor's change batches (an async sequence or a publisher).
struct ListChangeSink {
    let send: (ListChanges, SourceIdentifierBox) -> Void
    let finish: () -> Void
}
