import Foundation
import CoreStoreSQL
import CoreStoreStorage

/// Any number of `DataStack`s, in any number of processes and machines, may add the same store
/// (the same database and schema). Commits run one at a time (each locks the store's counters
/// row first) and advance the store's key and sequence counters, so identifiers never collide;
/// each notifies the store's channel when it commits. Every open store listens on that channel
/// (`PostgresChangeListener`) and tells its stack at once; the stack then reads the summaries
/// of the commits it missed from the store's commit log (`corestore_commit_log`) and the
/// records they name, and hands them to its monitors.
extension PostgresStore: SharedAccessStorage {
    /// The database (without the password) and the schema.
    public var sharedIdentity: String { storeDescription }

    /// The sequence of the last commit stored, read on a pooled reader (one small query).
    public func storedCommitSequence() throws -> UInt64 {
        let state = try openState()
        return try state.readers.withConnection { try PostgresMetadata.counters($0).sequence }
    }

    /// How many commit notifications (and reconnections of the listening connection) this store
    /// heard: it changes whenever another connection may have committed. `nil` while closed.
    public var changeSignature: [Int64]? {
        currentState.map { [$0.listener.count] }
    }

    /// The summaries of the commits after `sequence` from the store's commit log (the last
    /// 1,000 commits), read on a pooled reader.
    public func committedChanges(after sequence: UInt64) throws -> [CommitSummary]? {
        let state = try openState()
        return try state.readers.withConnection { try SQLCommitLog.summaries(after: sequence, on: $0, dialect: state.mapping.dialect) }
    }

    /// Calls `handler` on the listener's thread for each commit notification it hears (and
    /// after it reconnects).
    public func onForeignCommit(_ handler: (@Sendable () -> Void)?) {
        currentState?.listener.onHear(handler)
    }
}
