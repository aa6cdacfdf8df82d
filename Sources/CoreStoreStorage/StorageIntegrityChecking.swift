/// A store that can check the structures it keeps beside its records — indexes, pages, its
/// engine's own bookkeeping — for `corestore check`. What every store can be checked for through
/// the contract alone (records that read back and have their entity's shape, relationships and
/// their inverses, unique constraints, counts) is ``StoreIntegrityCheck``; this is the rest.
public protocol StorageIntegrityChecking: StorageInterface {
    /// Checks the open store in one snapshot and reports each problem found as one line to
    /// `problem`; returns how many structures (index entries, pages…) it looked at. Throws only
    /// when the check cannot run at all.
    func checkIntegrity(_ problem: (String) -> Void) throws -> Int
}
