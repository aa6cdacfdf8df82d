import Dispatch
import Foundation

extension DataStack {
    /// Detaches and closes every store of the stack, so that their files can be deleted or
    /// opened by another stack, and waits until it is done. The stack stays usable: stores can
    /// be added again.
    ///
    /// Unsafe as its name says: objects fetched before keep the values they had but no longer
    /// reach storage, transactions begun before cannot commit, and monitors keep what they
    /// showed. Meant for tests and for resetting an app's data; files are not deleted.
    public func unsafeRemoveAllPersistentStoresAndWait() {
        // The body throws nothing; the pause only keeps commits out while stores go.
        try? withCommitsPaused { () throws(CoreStoreError) in
            let removed = gateway.removeAll()
            sharedStoreWatcher.unwatch(removed)
            mainContext.forgetAllObjects()
            for store in removed {
                store.storage.close()
                StorageClaims.release(store.storage)
            }
            if !removed.isEmpty {
                Log.log(.notice, "Removed \(removed.count) store(s) from the DataStack: \(removed.map(\.storage.storeDescription).joined(separator: ", "))")
            }
        }
    }

    /// ``unsafeRemoveAllPersistentStoresAndWait()`` on a background queue; `completion` runs on
    /// the main queue once every store is closed.
    public func unsafeRemoveAllPersistentStores(completion: @escaping @MainActor () -> Void = {}) {
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            unsafeRemoveAllPersistentStoresAndWait()
            Self.deliver((), to: completion)
        }
    }
}
