/// The statements a connection runs in every transaction, which it prepares once and holds by
/// position instead of finding them in its statement cache.
///
/// The cache is keyed by the statement's text: finding a statement there hashes the whole text
/// and compares it, 500 to 1,400 instructions a lookup, and a commit of one object made four
/// of them (begin, the two counters, commit), more than the rest of its bookkeeping.
enum SQLiteHeldStatement: Int, CaseIterable {
    /// `BEGIN IMMEDIATE`: a write transaction, which takes the write lock at once.
    case beginImmediate
    /// `BEGIN DEFERRED`: a read transaction.
    case beginDeferred
    case commit
    case rollback
    /// Stores the next record key (``SQLiteMetadata``).
    case updateNextKey
    /// Stores the commit sequence (``SQLiteMetadata``).
    case updateSequence

    /// The statement's text.
    var sql: String {
        switch self {
        case .beginImmediate: "BEGIN IMMEDIATE"
        case .beginDeferred: "BEGIN DEFERRED"
        case .commit: "COMMIT"
        case .rollback: "ROLLBACK"
        case .updateNextKey: SQLiteMetadata.updateNextKeySQL
        case .updateSequence: SQLiteMetadata.updateSequenceSQL
        }
    }
}
