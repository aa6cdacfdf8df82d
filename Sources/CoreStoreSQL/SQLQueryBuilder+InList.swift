extension SQLQueryBuilder {
    /// The right-hand side of an `IN` over `members` (non-NULL parameters, at least one), as
    /// the dialect binds it: one parameter per member, or for a long list one array parameter
    /// (databases cap the parameters of one statement).
    package mutating func inList(_ members: [SQLValue]) -> String {
        mapping.dialect.inList(members) { bind($0) }
    }
}
