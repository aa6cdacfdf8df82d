import CoreStore
import Foundation

/// CoreStore's public API on one storage backend: what a user of the framework writes.
final class CoreStoreSubject: BenchmarkSubject {
    /// A new instance of the subject's store, with these mapping providers and options; `nil`
    /// for a store that cannot be reopened (in memory).
    typealias Reopen = @Sendable (_ providers: [any SchemaMappingProvider], _ options: LocalStorageOptions) -> any UpgradableStorage

    private var dataStack: DataStack
    private let reopen: Reopen?

    /// A stack with `storage` (an empty store) added.
    init(storage: some StorageInterface, reopen: Reopen? = nil) throws {
        dataStack = DataStack(BenchItem.schema)
        self.reopen = reopen
        try dataStack.addStorageAndWait(storage)
    }

    /// W12 adds an attribute synchronously (lightweight); W13 runs a custom transformer on every
    /// row through the asynchronous `addStorage`.
    func migrate(_ workload: Workload) throws -> Bool {
        guard let reopen else { return false }
        switch workload {
        case .w12:
            // Releasing the old stack closes its store before the new one opens it.
            dataStack = DataStack(BenchItem.schema, BenchItemV2.schema, migrationChain: ["Bench1", "Bench2"])
            try dataStack.addStorageAndWait(reopen([], .allowSynchronousLightweightMigration))
            guard try dataStack.fetchCount(From<BenchItemV2>().where(\.$rank == 0)) > 0 else {
                throw BenchmarkError.unexpected("W12 left no item with the new attribute's default")
            }
        case .w13:
            dataStack = DataStack(BenchItem.schema, BenchItemV2.schema, BenchItemV3.schema, migrationChain: ["Bench1", "Bench2", "Bench3"])
            try addWaiting(reopen([BenchItemV3.mapping], []))
            guard let item = try dataStack.fetchOne(From<BenchItemV3>().orderBy(.descending(\.$score))),
                  item.band == Int(item.score / 100), item.name == item.name.uppercased() else {
                throw BenchmarkError.unexpected("W13 did not transform the items")
            }
        default:
            return false
        }
        return true
    }

    /// Adds `storage` through the asynchronous `addStorage` (which runs heavyweight steps) and
    /// waits until it is added.
    private func addWaiting<S: UpgradableStorage>(_ storage: S) throws {
        let stream = dataStack.async.addStorage(storage)
        let done = DispatchSemaphore(value: 0)
        let failure = ErrorBox()
        Task {
            do {
                for try await _ in stream {}
            } catch {
                failure.error = error
            }
            done.signal()
        }
        done.wait()
        if let error = failure.error { throw error }
    }

    @inline(never) func insert(_ rows: [BenchRow]) throws {
        try dataStack.perform(synchronous: { transaction in
            for row in rows {
                transaction.create(Into<BenchItem>()).assign(row)
            }
        })
    }

    @inline(never) func fetchAll() throws -> Checksum {
        var checksum = Checksum()
        for item in try dataStack.fetchAll(From<BenchItem>()) {
            item.addFields(to: &checksum)
        }
        return checksum
    }

    @inline(never) func fetch(age: Int) throws -> Checksum {
        var checksum = Checksum()
        for item in try dataStack.fetchAll(From<BenchItem>().where(\.$age == age)) {
            item.addFields(to: &checksum)
        }
        return checksum
    }

    @inline(never) func fetchTopScores(in range: ClosedRange<Double>, limit: Int) throws -> Checksum {
        let items = try dataStack.fetchAll(
            From<BenchItem>()
                .where(\.$score >= range.lowerBound && \.$score <= range.upperBound)
                .orderBy(.descending(\.$score), .ascending(\.$itemID))
                .tweak { $0.fetchLimit = limit }
        )
        var checksum = Checksum()
        for (offset, item) in items.enumerated() {
            item.addFields(to: &checksum, position: Int64(offset + 1))
        }
        return checksum
    }

    @inline(never) func aggregate() throws -> Checksum {
        var checksum = Checksum()
        checksum.add(Int64(try dataStack.fetchCount(From<BenchItem>())))
        checksum.add(Int64(try dataStack.queryValue(From<BenchItem>().select(Double.self, .sum(\.$score))) ?? 0))
        let groups = try dataStack.queryAttributes(
            From<BenchItem>()
                .select(NSDictionary.self, .attribute(\.$age), .count(\.$age, as: "count"), .sum(\.$score, as: "sum"))
                .groupBy(\.$age)
                .orderBy(.ascending(\.$age))
        )
        for group in groups {
            guard let age = group["age"] as? Int, let count = group["count"] as? Int, let sum = group["sum"] as? Double else {
                throw BenchmarkError.unexpected("group without age, count or sum: \(group)")
            }
            checksum.add(aggregateGroupChecksum(age: age, count: count, scoreSum: sum))
        }
        return checksum
    }

    @inline(never) func countPerAgeAndHighestID() throws -> Checksum {
        let groups = try dataStack.queryAttributes(
            From<BenchItem>()
                .select(NSDictionary.self, .attribute(\.$age), .count(\.$age, as: "count"))
                .groupBy(\.$age)
                .orderBy(.ascending(\.$age))
        )
        let counts = try groups.map { group -> (age: Int, count: Int) in
            guard let age = group["age"] as? Int, let count = group["count"] as? Int else {
                throw BenchmarkError.unexpected("group without age or count: \(group)")
            }
            return (age, count)
        }
        return countPerAgeChecksum(counts, highestID: try dataStack.queryValue(From<BenchItem>().select(Int64.self, .maximum(\.$itemID))))
    }

    @inline(never) func update(ids: Range<Int64>) throws {
        try dataStack.perform(synchronous: { transaction in
            let items = try transaction.fetchAll(From<BenchItem>().where(\.$itemID >= ids.lowerBound && \.$itemID < ids.upperBound))
            for item in items {
                item.score += 1
                item.age = (item.age + 1) % 100
            }
        })
    }

    @inline(never) func delete(ids: Range<Int64>) throws {
        _ = try dataStack.perform(synchronous: { transaction in
            try transaction.deleteAll(From<BenchItem>().where(\.$itemID >= ids.lowerBound && \.$itemID < ids.upperBound))
        })
    }

    func concurrentReads(readers: Int, fetches: Int, maxAge: Int, withWriter: Bool) throws -> ConcurrentReads? {
        // The threads reach the stack through a box emptied when they are done, so that none of
        // them still holds it when the next workload replaces the stack.
        let box = StackBox(dataStack)
        defer { box.stack = nil }
        let failure = LockedError()
        let rowsRead = LockedCount()
        let stop = LockedCount()
        let readersDone = DispatchGroup()
        for _ in 0..<readers {
            readersDone.enter()
            Thread.detachNewThread {
                defer { readersDone.leave() }
                do {
                    guard let stack = box.stack else { return }
                    for _ in 0..<fetches {
                        var checksum = Checksum()
                        let items = try stack.fetchAll(From<BenchItem>().where(\.$age < maxAge))
                        for item in items { item.addFields(to: &checksum) }
                        rowsRead.add(items.count)
                    }
                } catch {
                    failure.set(error)
                }
            }
        }
        let writerDone = DispatchSemaphore(value: 0)
        let commits = LockedCount()
        if withWriter {
            Thread.detachNewThread {
                defer { writerDone.signal() }
                guard let stack = box.stack else { return }
                var k: Int64 = 0
                while stop.value == 0 {
                    do {
                        let id = (k &* 7919) % 10_000
                        try stack.perform(synchronous: { transaction in
                            if let item = try transaction.fetchOne(From<BenchItem>().where(\.$itemID == id)) { item.score += 1 }
                        }, waitForAllObservers: false)
                        commits.add(1)
                    } catch {
                        failure.set(error)
                        return
                    }
                    k += 1
                    // A steady writer (about a thousand commits a second at most), not a third
                    // thread spinning on a 2-core machine: readers must not wait for it.
                    Thread.sleep(forTimeInterval: 0.001)
                }
            }
        }
        readersDone.wait()
        stop.add(1)
        if withWriter { writerDone.wait() }
        if let error = failure.error { throw error }
        return ConcurrentReads(rowsRead: rowsRead.value, commits: commits.value)
    }

    @inline(never) func monitoredUpdates(_ updates: [(id: Int64, score: Double)]) throws -> [Duration] {
        let deliveryQueue = DispatchQueue(label: "corestore-bench.monitor")
        let monitor = try dataStack.monitorList(From<BenchItem>().orderBy(.ascending(\.$score), .ascending(\.$itemID)), deliveryQueue: deliveryQueue)
        let observer = CallbackClock()
        monitor.addObserver(observer)
        var durations: [Duration] = []
        for update in updates {
            let commitStart = try dataStack.perform(synchronous: { transaction -> ContinuousClock.Instant in
                guard let item = try transaction.fetchOne(From<BenchItem>().where(\.$itemID == update.id)) else {
                    throw BenchmarkError.unexpected("no item \(update.id) to update")
                }
                item.score = update.score
                return ContinuousClock.now
            })
            // perform(synchronous:) returns after the observers were told.
            guard let callback = observer.takeLastCallback() else {
                throw BenchmarkError.unexpected("the list monitor was not told about update \(update.id)")
            }
            durations.append(callback - commitStart)
        }
        monitor.removeObserver(observer)
        return durations
    }

    @inline(never) func importUnique(_ rows: [BenchRow]) throws {
        try dataStack.perform(synchronous: { transaction in
            _ = try transaction.importUniqueObjects(Into<BenchItem>(), sourceArray: rows)
        })
    }

    @inline(never) func insertEach(_ rows: [BenchRow]) throws {
        for row in rows {
            try dataStack.perform(synchronous: { transaction in
                transaction.create(Into<BenchItem>()).assign(row)
            })
        }
    }
}

/// The error of a task the benchmark waits for.
private final class ErrorBox: @unchecked Sendable {
    var error: (any Error)?
}

/// A list observer that notes when it was last told about a change.
private final class CallbackClock: ListObserver, @unchecked Sendable {
    typealias ListEntityType = BenchItem
    private let lock = NSLock()
    private var lastCallback: ContinuousClock.Instant?

    func listMonitorDidChange(_ monitor: ListMonitor<BenchItem>) {
        let now = ContinuousClock.now
        lock.withLock { lastCallback = now }
    }

    /// The time of the last callback, cleared.
    func takeLastCallback() -> ContinuousClock.Instant? {
        lock.withLock {
            defer { lastCallback = nil }
            return lastCallback
        }
    }
}

/// A count shared by W14's threads.
private final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add(_ n: Int) { lock.withLock { count += n } }
}

/// The first error of W14's threads.
private final class LockedError: @unchecked Sendable {
    private let lock = NSLock()
    private var first: (any Error)?
    var error: (any Error)? { lock.withLock { first } }
    func set(_ error: any Error) { lock.withLock { if first == nil { first = error } } }
}

/// The stack, for W14's threads.
private final class StackBox: @unchecked Sendable {
    var stack: DataStack?
    init(_ stack: DataStack) { self.stack = stack }
}
