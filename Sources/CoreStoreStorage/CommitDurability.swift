/// How hard a persistent store works to put a commit on disk before the commit returns.
///
/// Each engine says what the two levels mean for it (`SQLiteStore.Durability`,
/// `LMDBEngine.Durability`, `LevelDBEngine.Durability` are this type); in short:
public enum CommitDurability: Sendable, Hashable {
    /// A returned commit survives a crash of the program and of the machine (a power loss).
    /// The default of every engine, and the only level that declares
    /// ``StorageCapabilities/durableCommits``.
    case full
    /// A returned commit survives a crash of the program, but the most recent commits may be
    /// lost when the machine loses power. Faster.
    case normal
}
