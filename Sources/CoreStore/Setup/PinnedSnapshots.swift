import Foundation
import CoreStoreStorage

/// Read transactions a thread keeps open on some stores of one gateway, so that all its reads
/// of them see one moment (see ``StorageGateway/readingOneSnapshot(of:_:)``).
///
/// One per thread at a time, reached through a thread-specific slot; other threads never see
/// it, so a reader is only ever used by the thread that opened it.
final class PinnedSnapshots {
    /// The gateway whose reads use these readers.
    let gateway: ObjectIdentifier
    /// The open reader of each pinned store, by store identifier.
    private(set) var readers: [UInt64: any StorageReader] = [:]

    init(gateway: ObjectIdentifier) {
        self.gateway = gateway
    }

    /// The reader pinned for `store` of `gateway` on this thread, if any.
    static func reader(for store: AttachedStore, of gateway: ObjectIdentifier) -> (any StorageReader)? {
        guard let current, current.gateway == gateway else { return nil }
        return current.readers[store.id]
    }

    /// Runs `body` with `reader` pinned for the store with identifier `id`.
    func with<T>(_ reader: any StorageReader, for id: UInt64, _ body: () throws -> T) rethrows -> T {
        readers[id] = reader
        defer { readers[id] = nil }
        return try body()
    }

    private static let slot = ThreadSlot<PinnedSnapshots>()

    /// The calling thread's pinned readers, if any (see ``ThreadSlot``).
    static var current: PinnedSnapshots? {
        get { slot.value }
        set { slot.value = newValue }
    }
}
