import Foundation

/// A list that publishes a new ``ListSnapshot`` once per commit that changes it.
///
/// ```swift
/// let publisher = try dataStack.publishList(From<Person>().orderBy(.ascending(\.$name)))
/// publisher.addObserver(self) { publisher in apply(publisher.snapshot) }
/// for await snapshot in publisher.snapshots { … }
/// ```
/// It follows commits like a ``ListMonitor`` (incrementally, on the delivery queue, the main
/// queue by default) and holds observers weakly.
public final class ListPublisher<O: CoreStoreObject>: @unchecked Sendable, CustomDebugStringConvertible {
    /// The stack whose commits the publisher follows.
    public let dataStack: DataStack
    private let monitor: ListMonitor<O>
    private let lock = NSLock()
    private var current: ListSnapshot<O>
    private let observers = PublisherObservers<ListPublisher<O>>()
    private let snapshotStreams = AsyncStreamFanOut<ListSnapshot<O>>()
    private let changeStreams = AsyncStreamFanOut<ListChanges>()
    private var sinkToken: UUID?

    init(monitor: ListMonitor<O>) {
        self.dataStack = monitor.dataStack
        self.monitor = monitor
        self.current = Self.snapshot(of: monitor)
        sinkToken = monitor.addSink(ListChangeSink(send: { [weak self] changes, source in self?.publish(changes, source: source) }, finish: {}))
    }

    deinit {
        if let sinkToken { monitor.removeSink(sinkToken) }
        snapshotStreams.finish()
        changeStreams.finish()
    }

    /// The list as of the last delivered commit.
    public var snapshot: ListSnapshot<O> {
        lock.withLock { current }
    }

    /// Calls `callback` after every commit that changes the list, while `observer` lives (held
    /// weakly); with `notifyInitial`, also right away.
    public func addObserver<T: AnyObject>(_ observer: T, notifyInitial: Bool = false, _ callback: @escaping (ListPublisher<O>) -> Void) {
        addObserver(observer, notifyInitial: notifyInitial) { publisher, _ in callback(publisher) }
    }

    /// Calls `callback` after every commit that changes the list, with the committing
    /// transaction's `sourceIdentifier` (or the one given to `refetch(_:sourceIdentifier:)`);
    /// with `notifyInitial`, also right away, with `initialSourceIdentifier`.
    public func addObserver<T: AnyObject>(
        _ observer: T, notifyInitial: Bool = false, initialSourceIdentifier: Any? = nil,
        _ callback: @escaping (_ listPublisher: ListPublisher<O>, _ sourceIdentifier: Any?) -> Void
    ) {
        observers.add(observer, callback)
        if notifyInitial { callback(self, initialSourceIdentifier) }
    }

    /// Stops calling `observer`'s callback.
    public func removeObserver<T: AnyObject>(_ observer: T) {
        observers.remove(observer)
    }

    /// The current snapshot, then one after every commit that changes the list. Cancelling the
    /// iterating task unsubscribes; the sequence ends when the publisher goes away.
    public var snapshots: AsyncStream<ListSnapshot<O>> {
        lock.withLock { snapshotStreams.makeStream(initial: current) }
    }

    /// What each commit changed in the list, as ``ListMonitor/changes`` reports it (a refetch
    /// arrives as a value whose ``ListChanges/isRefetch`` is `true`); when a value arrives,
    /// ``snapshot`` already shows the list after it. Cancelling the iterating task
    /// unsubscribes; the sequence ends when the publisher goes away.
    public var changes: AsyncStream<ListChanges> {
        changeStreams.makeStream()
    }

    /// Replaces the filter, order and tweaks (the `From` and sections stay); observers hear
    /// about the new list once it is delivered, with `sourceIdentifier`.
    public func refetch(_ fetchClauses: FetchClause..., sourceIdentifier: Any? = nil) throws {
        try monitor.refetch(fetchClauses, sourceIdentifier: sourceIdentifier)
    }

    /// Replaces the filter, order and tweaks.
    public func refetch(_ fetchClauses: [FetchClause], sourceIdentifier: Any? = nil) throws {
        try monitor.refetch(fetchClauses, sourceIdentifier: sourceIdentifier)
    }

    /// Replaces the filter, order and tweaks with those of `clauseChain`, which must start from
    /// the same entity: `refetch(From<Person>().where(\.$age > 30), sourceIdentifier: tag)`.
    public func refetch(_ clauseChain: FetchChainBuilder<O>, sourceIdentifier: Any? = nil) throws {
        try monitor.refetch(clauseChain.fetchClauses, sourceIdentifier: sourceIdentifier)
    }

    /// Replaces the filter, order and tweaks with those of a sectioned chain; its section key
    /// must be the publisher's (sections are chosen when the publisher is made).
    public func refetch(_ clauseChain: SectionMonitorChainBuilder<O>, sourceIdentifier: Any? = nil) throws {
        let current = monitor.sectionBy?.sectionKeyPath
        guard clauseChain.sectionBy.sectionKeyPath == current else {
            throw Log.error(
                .invalidPredicate(message: "refetch cannot change a list's sections (from '\(current ?? "none")' to '\(clauseChain.sectionBy.sectionKeyPath)'); publish a new list instead"),
                "Refusing to refetch."
            )
        }
        try monitor.refetch(clauseChain.fetchClauses, sourceIdentifier: sourceIdentifier)
    }

    private func publish(_ changes: ListChanges, source: SourceIdentifierBox) {
        let snapshot = Self.snapshot(of: monitor)
        lock.withLock { current = snapshot }
        observers.notify(self, sourceIdentifier: source.value)
        snapshotStreams.send(snapshot)
        changeStreams.send(changes)
    }

    private static func snapshot(of monitor: ListMonitor<O>) -> ListSnapshot<O> {
        let sections = monitor.withState { state in
            state.sections.enumerated().map { index, run in
                let start = state.sectionStarts[index]
                return ListSnapshot<O>.Section(
                    id: run.name, indexTitle: monitor.sectionBy?.sectionIndexTransformer(run.name),
                    itemIDs: state.entries[start..<start + run.count].map(\.id)
                )
            }
        }
        return ListSnapshot(sections: sections, dataStack: monitor.dataStack)
    }

    /// The entity and size.
    public var debugDescription: String {
        let snapshot = self.snapshot
        return "ListPublisher<\(O.self)>(\(snapshot.numberOfItems) objects in \(snapshot.numberOfSections) sections)"
    }
}
