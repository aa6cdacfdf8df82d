import Foundation

/// List monitors whose first fetch runs in the background: the call returns at once and the
/// monitor arrives, filled, on the delivery queue. For lists whose first read is long enough to
/// be felt on the main thread.
///
/// A request the schema rejects throws right away, as the synchronous factories do. A failure
/// of the first fetch itself (a storage error) goes to `failure` on the delivery queue, or to
/// the logger when there is none; `createAsynchronously` is then not called.
extension DataStack {
    /// Creates a list monitor in the background and hands it to `createAsynchronously` on
    /// `deliveryQueue` once its objects are fetched.
    public func monitorList<O>(
        createAsynchronously: @escaping (ListMonitor<O>) -> Void,
        _ from: From<O>, _ fetchClauses: FetchClause...,
        deliveryQueue: DispatchQueue = .main, failure: ((CoreStoreError) -> Void)? = nil
    ) throws {
        try createListMonitor(from, fetchClauses, sectionBy: nil, deliveryQueue: deliveryQueue, created: createAsynchronously, failure: failure)
    }

    /// Creates a list monitor in the background.
    public func monitorList<O>(
        createAsynchronously: @escaping (ListMonitor<O>) -> Void,
        _ from: From<O>, _ fetchClauses: [FetchClause],
        deliveryQueue: DispatchQueue = .main, failure: ((CoreStoreError) -> Void)? = nil
    ) throws {
        try createListMonitor(from, fetchClauses, sectionBy: nil, deliveryQueue: deliveryQueue, created: createAsynchronously, failure: failure)
    }

    /// Creates a list monitor of a clause chain in the background.
    public func monitorList<O>(
        createAsynchronously: @escaping (ListMonitor<O>) -> Void,
        _ clauseChain: FetchChainBuilder<O>,
        deliveryQueue: DispatchQueue = .main, failure: ((CoreStoreError) -> Void)? = nil
    ) throws {
        try createListMonitor(clauseChain.from, clauseChain.fetchClauses, sectionBy: nil, deliveryQueue: deliveryQueue, created: createAsynchronously, failure: failure)
    }

    /// Creates a sectioned list monitor in the background.
    public func monitorSectionedList<O>(
        createAsynchronously: @escaping (ListMonitor<O>) -> Void,
        _ from: From<O>, _ sectionBy: SectionBy<O>, _ fetchClauses: FetchClause...,
        deliveryQueue: DispatchQueue = .main, failure: ((CoreStoreError) -> Void)? = nil
    ) throws {
        try createListMonitor(from, fetchClauses, sectionBy: sectionBy, deliveryQueue: deliveryQueue, created: createAsynchronously, failure: failure)
    }

    /// Creates a sectioned list monitor in the background.
    public func monitorSectionedList<O>(
        createAsynchronously: @escaping (ListMonitor<O>) -> Void,
        _ from: From<O>, _ sectionBy: SectionBy<O>, _ fetchClauses: [FetchClause],
        deliveryQueue: DispatchQueue = .main, failure: ((CoreStoreError) -> Void)? = nil
    ) throws {
        try createListMonitor(from, fetchClauses, sectionBy: sectionBy, deliveryQueue: deliveryQueue, created: createAsynchronously, failure: failure)
    }

    /// Creates a sectioned list monitor of a clause chain in the background.
    public func monitorSectionedList<O>(
        createAsynchronously: @escaping (ListMonitor<O>) -> Void,
        _ clauseChain: SectionMonitorChainBuilder<O>,
        deliveryQueue: DispatchQueue = .main, failure: ((CoreStoreError) -> Void)? = nil
    ) throws {
        try createListMonitor(clauseChain.from, clauseChain.fetchClauses, sectionBy: clauseChain.sectionBy, deliveryQueue: deliveryQueue, created: createAsynchronously, failure: failure)
    }

    /// Validates the request here, fetches on a background queue, reports on `deliveryQueue`.
    private func createListMonitor<O>(
        _ from: From<O>, _ fetchClauses: [FetchClause], sectionBy: SectionBy<O>?, deliveryQueue: DispatchQueue,
        created: @escaping (ListMonitor<O>) -> Void, failure: ((CoreStoreError) -> Void)?
    ) throws(CoreStoreError) {
        let query = try ListQuery(from.specification(fetchClauses), sectionKey: sectionBy?.sectionKeyPath, stack: self)
        // The callbacks run on the queue the caller chose, as CoreStore's do.
        let request = UncheckedBox((from, query, sectionBy))
        let onCreated = UncheckedBox(created), onFailure = UncheckedBox(failure)
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let (from, query, sectionBy) = request.value
            do throws(CoreStoreError) {
                let monitor = UncheckedBox(try ListMonitor(dataStack: self, from: from, query: query, sectionBy: sectionBy, deliveryQueue: deliveryQueue))
                deliveryQueue.async { onCreated.value(monitor.value) }
            } catch {
                deliveryQueue.async {
                    if let failure = onFailure.value {
                        failure(error)
                    } else {
                        _ = Log.error(error, "A list monitor of \(O.self) created asynchronously could not fetch its objects.")
                    }
                }
            }
        }
    }
}
