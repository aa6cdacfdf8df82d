extension DataStack {
    /// Reads the stack's objects from storage again and lets its monitors re-examine what they
    /// show.
    ///
    /// The stack's own commits keep its objects and monitors current without this call; it
    /// matters when storage was changed some other way (a tool that wrote to the store, a
    /// restore from a backup file). Objects take the stored values (an object whose record is
    /// gone is deleted), object monitors report what changed, and list monitors compare their
    /// list with a fresh fetch, reporting the differences as a commit's callbacks. Returns after
    /// observers were told, as `perform(synchronous:)` does. Transactions are not touched: call
    /// ``BaseDataTransaction/refreshAndMergeAllObjects()`` on the ones that need it.
    ///
    /// Throws a ``CoreStoreError`` when reading a store fails.
    public func refreshAndMergeAllObjects() throws(CoreStoreError) {
        let deliveries = try refreshMainContext()
        for delivery in deliveries { delivery.flush() }
    }
}
