import Foundation
import CoreStoreStorage

/// The sorts of a store whose limited fetches met a tie across a window edge
/// (``SQLTopRowsWindow``): their next fetches put the `_key` tie-break in the SQL at once,
/// instead of running a select that is likely to be run again. A sort on a few distinct values
/// ("by status, first 10") lands here after its first fetch; a sort that ends in a unique
/// attribute ("by score, then id") never does.
///
/// A store whose readers break ties themselves keeps one and hands it to them. It remembers at
/// most ``capacity`` sorts, and starts over when full. Its readers share it under an `NSLock`
/// (see ``SQLHeldRecordsMemory`` for why not a `Mutex`).
package final class SQLSortTieMemory: @unchecked Sendable {
    /// The most sorts remembered.
    package static let capacity = 1_024

    private let lock = NSLock()
    private var tiedSorts: Set<String> = []

    package init() {}

    /// Whether a limited fetch of `entity` sorted by `sortDescriptors` met a tie at a window
    /// edge before.
    package func ties(_ entity: String, _ sortDescriptors: [RecordSortDescriptor]) -> Bool {
        let name = Self.name(entity, sortDescriptors)
        return lock.withLock { tiedSorts.contains(name) }
    }

    /// Notes that a limited fetch of `entity` sorted by `sortDescriptors` met a tie at a window
    /// edge.
    package func noteTie(_ entity: String, _ sortDescriptors: [RecordSortDescriptor]) {
        let name = Self.name(entity, sortDescriptors)
        lock.withLock {
            if tiedSorts.count >= Self.capacity { tiedSorts.removeAll() }
            tiedSorts.insert(name)
        }
    }

    /// The sort as one string: the entity, then each key with its direction.
    private static func name(_ entity: String, _ sortDescriptors: [RecordSortDescriptor]) -> String {
        var name = entity
        for descriptor in sortDescriptors {
            name += descriptor.ascending ? "\u{1}+" : "\u{1}-"
            name += descriptor.key
        }
        return name
    }
}
