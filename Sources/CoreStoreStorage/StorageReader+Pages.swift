extension StorageReader {
    /// Hands every record of `entity` (its own objects, not its sub-entities') to `visit`, in key
    /// order, at most `pageSize` at a time, reading one page with
    /// ``records(of:after:limit:)`` before each call: a whole entity in bounded memory.
    ///
    /// Errors from the reader or from `visit` end the scan and are rethrown. A `pageSize` below
    /// one reads one record at a time.
    public func forEachPage(of entity: String, pageSize: Int, _ visit: ([Record]) throws -> Void) throws {
        let pageSize = max(1, pageSize)
        var after = Int64.min
        while true {
            let page = try records(of: entity, after: after, limit: pageSize)
            if page.isEmpty { return }
            try visit(page)
            guard page.count == pageSize, let last = page.last else { return }
            after = last.id.key
        }
    }
}
