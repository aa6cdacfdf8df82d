import Dispatch

/// Lets go of many objects on a background queue, for the stack's read-only context when a
/// commit deleted thousands of the objects it held: freeing each one (its values, its
/// allocation) costs over a thousand instructions, which would otherwise lengthen the commit
/// that deleted them and the lock readers wait on.
///
/// Only objects the context no longer reaches are handed over, after the merge marked them
/// deleted; whoever else still holds one keeps it as before. Objects of the read-only context
/// may already be freed on whichever thread lets go of them last, so their `deinit` runs on
/// no thread in particular either way.
enum DeferredRelease {
    /// Fewer objects than this are freed where they are dropped: handing them over would cost
    /// more than it saves.
    static let minimumCount = 1_024

    private static let queue = DispatchQueue(label: "CoreStore.ObjectContext.release", qos: .utility)

    /// Carries objects to the queue; nothing reads them there.
    private struct Batch: @unchecked Sendable {
        let objects: [CoreStoreObject]
    }

    /// Frees `objects` on the background queue when they are many, here otherwise. The caller
    /// gives up its reference (`consuming`), so the last one is the queue's.
    static func release(_ objects: consuming [CoreStoreObject]) {
        guard objects.count >= minimumCount else { return }
        let batch = Batch(objects: objects)
        queue.async { withExtendedLifetime(batch) {} }
    }

    /// Waits until every batch handed over so far is freed (for tests that count on it).
    static func waitUntilReleased() {
        queue.sync {}
    }
}
