extension BaseDataTransaction {
    /// Brings the objects this transaction holds up to date with their stores, keeping its
    /// own changes.
    ///
    /// A transaction's objects hold the values stored when it fetched them; commits made since
    /// (by other transactions) do not reach them until it commits, where they are merged
    /// field by field. After this call every field the transaction has not changed shows the
    /// stored value, and every field it has changed keeps its pending value. An object another
    /// commit deleted is deleted here too, with its pending changes. The undo history is
    /// forgotten, as after a commit.
    ///
    /// Throws a ``CoreStoreError`` when reading a store fails; the objects of the stores not
    /// yet read keep the values they had.
    public func refreshAndMergeAllObjects() throws(CoreStoreError) {
        _ = try context.refreshAllObjects()
    }
}
