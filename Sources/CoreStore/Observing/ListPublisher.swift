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
        sinkToken = monitor.addSink(ListChangeSink(send: { [weak self] changes in self?.publish(changes) }, finish: {}))
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
        observers.add(observer, callback)
        if notifyInitial { callback(self) }
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
    /// about the new list once it is delivered.
    public func refetch(_ fetchClauses: FetchClause...) throws {
        try monitor.refetch(fetchClauses)
    }

    /// Replaces the filter, order and tweaks.
    public func refetch(_ fetchClauses: [FetchClause]) throws {
        try monitor.refetch(fetchClauses)
    }

    private func publish(_ changes: ListChanges) {
        let snapshot = Self.snapshot(of: monitor)
        lock.withLock { current = snapshot }
        observers.notify(self)
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
