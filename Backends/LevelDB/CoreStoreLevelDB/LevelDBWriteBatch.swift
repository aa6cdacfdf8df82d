import CLevelDB
import CoreStoreKeyValue

/// A `leveldb_writebatch_t` that a write's ``BufferedKeyValueWriter`` fills as the writes are
/// made (see ``KeyValueWriteBatch``): `LevelDBDatabase.apply(_:)` then writes the batches
/// as they are, with no copy of every key and value into a batch at the end.
final class LevelDBWriteBatch: KeyValueWriteBatch {
    /// The native batch; destroyed with this object.
    let handle: OpaquePointer

    init() {
        handle = leveldb_writebatch_create()
    }

    deinit {
        leveldb_writebatch_destroy(handle)
    }

    func put(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        leveldb_writebatch_put(handle, key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count, value.baseAddress?.assumingMemoryBound(to: CChar.self), value.count)
    }

    func delete(key: UnsafeRawBufferPointer) {
        leveldb_writebatch_delete(handle, key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count)
    }

    /// Visits the writes through `leveldb_writebatch_iterate`, whose callbacks find `body`
    /// through their state pointer.
    func forEach(_ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer?) -> Void) {
        typealias Visit = (UnsafeRawBufferPointer, UnsafeRawBufferPointer?) -> Void
        withoutActuallyEscaping(body) { body in
            var visit: Visit = body
            withUnsafeMutablePointer(to: &visit) { state in
                leveldb_writebatch_iterate(
                    handle, state,
                    { state, key, keyLength, value, valueLength in
                        let visit = state.unsafelyUnwrapped.assumingMemoryBound(to: Visit.self).pointee
                        visit(UnsafeRawBufferPointer(start: key, count: keyLength), UnsafeRawBufferPointer(start: value, count: valueLength))
                    },
                    { state, key, keyLength in
                        let visit = state.unsafelyUnwrapped.assumingMemoryBound(to: Visit.self).pointee
                        visit(UnsafeRawBufferPointer(start: key, count: keyLength), nil)
                    }
                )
            }
        }
    }
}
