/// An engine's own write batch (LevelDB's `WriteBatch`, RocksDB's), which a
/// ``BufferedKeyValueWriter`` fills as the writes are made, so that the engine applies it
/// as it is instead of copying every key and value into it from the writer's log at the end.
///
/// The writer keeps one batch per run of writes between reads: a read needs the writes made
/// before it in its overlay, so it visits the open batch once (``forEach(_:)``) and the next
/// write begins a new batch. The engine applies ``BufferedKeyValueWriter/writeBatches`` in
/// order, all of them or none (LevelDB: appended into the first, then one `leveldb_write`).
///
/// ```swift
/// final class MyBatch: KeyValueWriteBatch { … }          // wraps the native batch
/// let writer = BufferedKeyValueWriter(base: snapshot, batches: { MyBatch() })
/// let result = try body(writer)
/// try db.apply(writer.writeBatches.map { $0 as! MyBatch })
/// ```
public protocol KeyValueWriteBatch: AnyObject {
    /// Adds a put of `value` under `key` (both copied; valid only during the call).
    func put(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)
    /// Adds a delete of `key` (copied; valid only during the call).
    func delete(key: UnsafeRawBufferPointer)
    /// Calls `body` with each write in the order it was added: its key, and its value (`nil`
    /// for a delete), both valid only until `body` returns.
    func forEach(_ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer?) -> Void)
}
