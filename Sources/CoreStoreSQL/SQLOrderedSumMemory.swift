import Foundation

/// The double attributes of a store whose sums, added in any order, failed
/// ``SQLOrderFreeDoubleSum``'s test (a value such as `0.1`): their next aggregates add in key
/// order at once, instead of asking twice. An attribute that holds such values usually goes on
/// holding them, but not always (they may be deleted), so after ``keyOrderedRuns`` aggregates
/// in key order the next one tries any order again: a column of decimal fractions costs one
/// extra query in that many.
///
/// A store whose dialect has an order-free sum keeps one and hands it to its readers. It
/// remembers at most ``capacity`` attributes, and starts over when full. Its readers share it
/// under an `NSLock` (see ``SQLHeldRecordsMemory`` for why not a `Mutex`).
package final class SQLOrderedSumMemory: @unchecked Sendable {
    /// How many aggregates of a remembered attribute add in key order before one tries any
    /// order again.
    package static let keyOrderedRuns = 63
    /// The most attributes remembered.
    package static let capacity = 1_024

    private let lock = NSLock()
    /// The aggregates still to add in key order, per `entity \u{1} key`.
    private var keyOrderedRunsLeft: [String: Int] = [:]

    package init() {}

    /// Whether an aggregate summing these double attributes of `entity` should add in key order
    /// at once; counts one of the key-ordered runs of each remembered attribute.
    package func addsInKeyOrder(_ entity: String, _ keys: [String]) -> Bool {
        guard !keys.isEmpty else { return false }
        return lock.withLock {
            var inKeyOrder = false
            for key in keys {
                let name = Self.name(entity, key)
                guard let left = keyOrderedRunsLeft[name] else { continue }
                inKeyOrder = true
                keyOrderedRunsLeft[name] = left > 1 ? left - 1 : nil
            }
            return inKeyOrder
        }
    }

    /// Notes that sums of these double attributes of `entity` failed the test.
    package func noteFailedTest(_ entity: String, _ keys: [String]) {
        lock.withLock {
            if keyOrderedRunsLeft.count + keys.count > Self.capacity { keyOrderedRunsLeft.removeAll() }
            for key in keys { keyOrderedRunsLeft[Self.name(entity, key)] = Self.keyOrderedRuns }
        }
    }

    private static func name(_ entity: String, _ key: String) -> String { entity + "\u{1}" + key }
}
