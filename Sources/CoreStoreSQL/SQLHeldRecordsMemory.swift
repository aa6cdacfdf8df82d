import Foundation

/// What a store has seen, per entity, of fetches whose asker already held most of the matching
/// records (``CoreStoreStorage/FetchRequest/knownRecords``): whether the next such fetch should
/// ask for the matching keys first (``SQLReader/fetchHeldRecordsByKey(_:entity:)``).
///
/// A store keeps one and hands it to its readers. A fetch that found at least half of its rows
/// held says "keys first" for the entity's next fetch; one that found fewer says "whole rows". An
/// entity with no outcome yet is tried keys first: a store's first fetch of an entity holds
/// nothing, so the first one tried is one made while the asker holds objects it fetched before.
///
/// Readers on many threads share it: its outcomes are guarded by an `NSLock` (taken once per
/// fetch), whose ordering ThreadSanitizer sees; it does not see the Synchronization module's
/// `Mutex`, and reported the accesses under one as races.
package final class SQLHeldRecordsMemory: @unchecked Sendable {
    private let lock = NSLock()
    /// Per entity, whether its last fetch by a holding asker should have read keys first.
    private var prefersKeysFirst: [String: Bool] = [:]

    package init() {}

    /// Whether a fetch of `entity` whose asker holds records should read the matching keys
    /// first: the last such fetch's outcome, `true` before any.
    package func prefersKeysFirst(for entity: String) -> Bool {
        lock.withLock { prefersKeysFirst[entity] ?? true }
    }

    /// Notes that a fetch of `entity` found `held` of its `rows` rows held by the asker.
    package func remember(_ entity: String, held: Int, of rows: Int) {
        let keysFirst = held * 2 >= rows
        lock.withLock {
            if prefersKeysFirst[entity] != keysFirst { prefersKeysFirst[entity] = keysFirst }
        }
    }
}
