/// A store whose data other connections may change while it is open — another `DataStack` on
/// the same file in this process, or another process — and that can say cheaply how far its
/// data has come.
///
/// A `DataStack` lets two stores with the same ``sharedIdentity`` be added at once only when
/// they adopt this protocol, and follows each one's ``storedCommitSequence()``: when it moves
/// past the last commit the stack made or saw, someone else committed, and the stack reads its
/// objects again and lets its monitors re-examine what they show.
///
/// Adopting it promises what the conformance suite's `sharing` cases check:
/// 1. **Writers serialize on the data, not the instance.** Two instances over the same data may
///    write at once; each write still applies all or nothing, its permanent identifiers never
///    collide with the other's, and the commit sequence counts the writes of both
///    (``CommitCounters`` are read and advanced inside the engine's write transaction).
/// 2. **Reads see every committed write,** whichever instance made it.
/// 3. **``storedCommitSequence()`` is the sequence of the last commit stored,** by any
///    instance, and cheap enough to call several times a second.
public protocol SharedAccessStorage: StorageInterface {
    /// The same for every instance that opens the same data (for a file: its canonical path).
    var sharedIdentity: String { get }

    /// The sequence number of the last commit stored, by any connection (`0` before the first).
    /// Throws like ``StorageInterface/read(_:)`` (for example when the store is not open).
    func storedCommitSequence() throws -> UInt64

    /// Something that changes whenever a commit may have been stored since it was last taken,
    /// found without opening a transaction or taking a lock (file sizes and modification
    /// times); `nil` when the store cannot tell. A stack's periodic check reads
    /// ``storedCommitSequence()`` only when this changed (and every few seconds regardless);
    /// its other checks always read it.
    var changeSignature: [Int64]? { get }

    /// The summaries of the commits stored after `sequence`, in commit order, from
    /// `sequence + 1` to the last one stored; `nil` when the store keeps no summaries or no
    /// longer keeps all of those (it keeps only its latest commits). With them, a stack that
    /// fell behind reads only the records that changed, instead of everything it shows.
    func committedChanges(after sequence: UInt64) throws -> [CommitSummary]?

    /// Asks the store to call `handler` whenever it hears that another connection may have
    /// committed (a database notification), so the stack checks at once rather than at its next
    /// poll; `nil` stops the calls. Called on any thread. Stores that hear nothing ignore it.
    func onForeignCommit(_ handler: (@Sendable () -> Void)?)
}

extension SharedAccessStorage {
    /// `nil`: every periodic check reads ``storedCommitSequence()``.
    public var changeSignature: [Int64]? { nil }

    /// `nil`: the store keeps no commit summaries.
    public func committedChanges(after sequence: UInt64) throws -> [CommitSummary]? { nil }

    /// Does nothing: the stack's periodic checks find other connections' commits.
    public func onForeignCommit(_ handler: (@Sendable () -> Void)?) {}
}
