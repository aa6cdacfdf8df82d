import Foundation
import CoreStoreStorage

/// An engine that wraps another and makes chosen operations fail, the way a disk fails: for
/// testing that a failed commit throws, changes nothing and leaves the store usable.
///
/// It counts three kinds of ``Operation``: reads (every `get`, scan and in-place read), writes
/// (every `put` and `delete`) and commits (the end of a write transaction, where an engine
/// syncs). ``failNext(_:after:with:)`` plans one failure: the operation of that kind that comes
/// `after` more of its kind throws `StorageError/engine(code:message:)` with the errno of the
/// ``Fault``. A failing write or commit throws inside the wrapped engine's write transaction, so
/// the engine rolls it back: nothing of it reaches the base store, exactly as when its own
/// write or sync fails. A planned failure happens once; ``clearFaults()`` cancels the rest.
///
/// ```swift
/// let engine = FaultInjectingKeyValueStore(base: LMDBEngine(directoryURL: url))
/// let storage = try stack.addStorageAndWait(KeyValueStorage(engine: engine))
/// engine.failNext(.write, after: 3, with: .noSpace)   // the 4th put or delete from now
/// ```
///
/// To sweep every operation of a scenario, run it once without faults and read
/// ``count(of:)`` (after ``resetCounts()``), then run it again once per operation with a
/// failure planned there.
public final class FaultInjectingKeyValueStore<Base: OrderedKeyValueStore>: OrderedKeyValueStore, @unchecked Sendable {
    /// What can be made to fail.
    public enum Operation: Sendable, Hashable, CaseIterable {
        /// A `get`, a scan, or an in-place read, in any transaction.
        case read
        /// A `put` or a `delete`.
        case write
        /// The end of a write transaction, where the engine commits and syncs.
        case commit
    }

    /// The error a failure reports.
    public enum Fault: Sendable, Hashable {
        /// An I/O error (`EIO`, 5).
        case ioError
        /// No space left on the device (`ENOSPC`, 28).
        case noSpace

        var error: StorageError {
            switch self {
            case .ioError: .engine(code: 5, message: "injected fault: input/output error (EIO)")
            case .noSpace: .engine(code: 28, message: "injected fault: no space left on device (ENOSPC)")
            }
        }
    }

    /// The wrapped engine.
    public let base: Base
    private let lock = NSLock()
    private var counts: [Operation: Int] = [:]
    private var planned: [Operation: (remaining: Int, fault: Fault)] = [:]

    /// Wraps `base`, with no failure planned.
    public init(base: Base) {
        self.base = base
    }

    /// Makes the operation of kind `operation` that comes after `after` more of its kind fail
    /// with `fault` (once); replaces an earlier plan for that kind.
    public func failNext(_ operation: Operation, after: Int = 0, with fault: Fault = .ioError) {
        lock.withLock { planned[operation] = (max(0, after), fault) }
    }

    /// Cancels every planned failure.
    public func clearFaults() {
        lock.withLock { planned.removeAll() }
    }

    /// How many operations of kind `operation` ran (or failed) since the last ``resetCounts()``.
    public func count(of operation: Operation) -> Int {
        lock.withLock { counts[operation, default: 0] }
    }

    /// Sets every count to zero.
    public func resetCounts() {
        lock.withLock { counts.removeAll() }
    }

    /// Counts one operation and throws if it is the one planned to fail.
    func perform(_ operation: Operation) throws {
        let fault: Fault? = lock.withLock {
            counts[operation, default: 0] += 1
            guard let plan = planned[operation] else { return nil }
            if plan.remaining == 0 {
                planned[operation] = nil
                return plan.fault
            }
            planned[operation] = (plan.remaining - 1, plan.fault)
            return nil
        }
        if let fault { throw fault.error }
    }

    /// The base engine's description, marked as wrapped.
    public var storeDescription: String { "FaultInjecting(\(base.storeDescription))" }
    /// The base engine's durability.
    public var isDurable: Bool { base.isDurable }
    /// Opens the base engine (never fails by injection).
    public func open() throws { try base.open() }
    /// Opens the base engine with its own confirmation (never fails by injection).
    public func open(confirmingWith check: () throws -> Void) throws { try base.open(confirmingWith: check) }
    /// Opens the base engine only if its store exists (never fails by injection).
    public func openExisting(confirmingWith check: () throws -> Void) throws { try base.openExisting(confirmingWith: check) }
    /// Closes the base engine.
    public func close() { base.close() }
    /// Deletes the base engine's files (never fails by injection).
    public func destroy() throws { try base.destroy() }

    /// A read transaction of the base engine whose reads are counted and may fail.
    public func read<T>(_ body: (any KeyValueReader) throws -> T) throws -> T {
        try base.read { reader in try body(FaultInjectingReader(base: reader, store: self)) }
    }

    /// A write transaction of the base engine whose reads, writes and commit are counted and may
    /// fail; a failure throws inside the transaction, so the base engine rolls it back.
    public func write<T>(_ body: (any KeyValueWriter) throws -> T) throws -> T {
        try base.write { writer in
            let result = try body(FaultInjectingWriter(base: writer, store: self))
            try perform(.commit)
            return result
        }
    }
}

/// The reader of a ``FaultInjectingKeyValueStore``: counts each read, then reads from the base.
struct FaultInjectingReader<Base: OrderedKeyValueStore>: KeyValueReader {
    let base: any KeyValueReader
    let store: FaultInjectingKeyValueStore<Base>

    /// The base reader's answer: faults are refused reads, not changed bytes.
    var verifiesStoredBytes: Bool { base.verifiesStoredBytes }

    func get(_ key: [UInt8]) throws -> [UInt8]? {
        try store.perform(.read)
        return try base.get(key)
    }

    func scan(from lowerBound: [UInt8], to upperBound: [UInt8], reverse: Bool, _ visit: ([UInt8], [UInt8]) throws -> Bool) throws {
        try store.perform(.read)
        try base.scan(from: lowerBound, to: upperBound, reverse: reverse, visit)
    }

    func scanValues(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (UnsafeRawBufferPointer) throws -> Bool) throws {
        try store.perform(.read)
        try base.scanValues(from: lowerBound, to: upperBound, visit)
    }

    func scanKeys(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (UnsafeRawBufferPointer) throws -> Bool) throws {
        try store.perform(.read)
        try base.scanKeys(from: lowerBound, to: upperBound, visit)
    }

    func scanPairs(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try store.perform(.read)
        try base.scanPairs(from: lowerBound, to: upperBound, visit)
    }

    func withValue(_ key: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        try store.perform(.read)
        return try base.withValue(key, body)
    }
}

/// The writer of a ``FaultInjectingKeyValueStore``: counts each read and write, then forwards.
struct FaultInjectingWriter<Base: OrderedKeyValueStore>: KeyValueWriter {
    let base: any KeyValueWriter
    let store: FaultInjectingKeyValueStore<Base>

    private var reader: FaultInjectingReader<Base> { FaultInjectingReader(base: base, store: store) }

    /// The base writer's answer (see ``FaultInjectingReader/verifiesStoredBytes``).
    var verifiesStoredBytes: Bool { base.verifiesStoredBytes }

    func get(_ key: [UInt8]) throws -> [UInt8]? { try reader.get(key) }

    func scan(from lowerBound: [UInt8], to upperBound: [UInt8], reverse: Bool, _ visit: ([UInt8], [UInt8]) throws -> Bool) throws {
        try reader.scan(from: lowerBound, to: upperBound, reverse: reverse, visit)
    }

    func scanValues(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (UnsafeRawBufferPointer) throws -> Bool) throws {
        try reader.scanValues(from: lowerBound, to: upperBound, visit)
    }

    func scanKeys(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (UnsafeRawBufferPointer) throws -> Bool) throws {
        try reader.scanKeys(from: lowerBound, to: upperBound, visit)
    }

    func scanPairs(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try reader.scanPairs(from: lowerBound, to: upperBound, visit)
    }

    func withValue(_ key: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        try reader.withValue(key, body)
    }

    func put(_ key: [UInt8], _ value: [UInt8]) throws {
        try store.perform(.write)
        try base.put(key, value)
    }

    func delete(_ key: [UInt8]) throws {
        try store.perform(.write)
        try base.delete(key)
    }

    /// The wrapped writer's preference.
    var prefersPutsInKeyOrder: Bool { base.prefersPutsInKeyOrder }
}
