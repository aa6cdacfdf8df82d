// CoreStore's other ways to add a filter to a chain: a closure over the fields
// (`.where { $0.$age > 30 }`) and several conditions joined first (`where(combineByOr: a, b)`).
// Each adds one `Where`, combined by AND with the chain's earlier filters.

extension From {
    /// Starts a chain with the filter `condition` builds from the fields:
    /// `From<Person>().where { $0.$age > 30 }`.
    public func `where`(_ condition: (O) -> Where<O>) -> FetchChainBuilder<O> {
        `where`(Where(condition))
    }

    /// Starts a chain with a filter that keeps objects matching every one of `clauses`.
    public func `where`(combineByAnd clauses: Where<O>...) -> FetchChainBuilder<O> {
        `where`(clauses.combinedByAnd())
    }

    /// Starts a chain with a filter that keeps objects matching any of `clauses`.
    public func `where`(combineByOr clauses: Where<O>...) -> FetchChainBuilder<O> {
        `where`(clauses.combinedByOr())
    }
}

extension FetchChainBuilder {
    /// Adds the filter `condition` builds from the fields: `.where { $0.$age > 30 }`.
    public func `where`(_ condition: (O) -> Where<O>) -> FetchChainBuilder<O> {
        `where`(Where(condition))
    }

    /// Adds a filter that keeps objects matching every one of `clauses`.
    public func `where`(combineByAnd clauses: Where<O>...) -> FetchChainBuilder<O> {
        `where`(clauses.combinedByAnd())
    }

    /// Adds a filter that keeps objects matching any of `clauses` (and the earlier filters).
    public func `where`(combineByOr clauses: Where<O>...) -> FetchChainBuilder<O> {
        `where`(clauses.combinedByOr())
    }
}

extension QueryChainBuilder {
    /// Adds the filter `condition` builds from the fields: `.where { $0.$age > 30 }`.
    public func `where`(_ condition: (O) -> Where<O>) -> QueryChainBuilder<O, T> {
        `where`(Where(condition))
    }

    /// Adds a filter that keeps objects matching every one of `clauses`.
    public func `where`(combineByAnd clauses: Where<O>...) -> QueryChainBuilder<O, T> {
        `where`(clauses.combinedByAnd())
    }

    /// Adds a filter that keeps objects matching any of `clauses` (and the earlier filters).
    public func `where`(combineByOr clauses: Where<O>...) -> QueryChainBuilder<O, T> {
        `where`(clauses.combinedByOr())
    }
}

extension SectionMonitorChainBuilder {
    /// Adds the filter `condition` builds from the fields: `.where { $0.$age > 30 }`.
    public func `where`(_ condition: (O) -> Where<O>) -> SectionMonitorChainBuilder<O> {
        `where`(Where(condition))
    }

    /// Adds a filter that keeps objects matching every one of `clauses`.
    public func `where`(combineByAnd clauses: Where<O>...) -> SectionMonitorChainBuilder<O> {
        `where`(clauses.combinedByAnd())
    }

    /// Adds a filter that keeps objects matching any of `clauses` (and the earlier filters).
    public func `where`(combineByOr clauses: Where<O>...) -> SectionMonitorChainBuilder<O> {
        `where`(clauses.combinedByOr())
    }
}
