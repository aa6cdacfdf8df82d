import Foundation
import Testing
@testable import CoreStore

/// Reads a monitor from its callbacks while commits land.
final class ReadingObserver: ListObjectObserver, @unchecked Sendable {
    typealias ListEntityType = Person
    private let lock = NSLock()
    private var _problems: [String] = []
    private var _batches = 0
    var problems: [String] { lock.withLock { _problems } }
    var batches: Int { lock.withLock { _batches } }
    func listMonitorDidChange(_ monitor: ListMonitor<Person>) {
        let objects = monitor.objectsInAllSections()
        let ages = objects.map(\.age)
        lock.withLock {
            _batches += 1
            if monitor.numberOfObjects() < objects.count { _problems.append("count went down while reading") }
            _ = ages
        }
    }
    func listMonitor(_ monitor: ListMonitor<Person>, didInsertObject object: Person, toIndexPath indexPath: IndexPath) {
        _ = object.name
    }
}

@Suite("Observation under concurrent writers")
struct ObservationStressTests {
    @Test(arguments: [StoreKind.inMemory, .sqlite, .lmdb])
    func manyWritersWhileObserversRead(_ kind: StoreKind) async throws {
        let stack = try makeStack(kind)
        let queue = makeDeliveryQueue()
        let clauses = From<Person>().orderBy(.ascending(\.$age), .ascending(\.$name))
        let monitor = try stack.monitorList(clauses, deliveryQueue: queue)
        let observer = ReadingObserver()
        monitor.addObserver(observer)
        let publisherQueue = makeDeliveryQueue()
        let publisher = try stack.publishList(clauses, deliveryQueue: publisherQueue)
        let objectMonitors = try (0..<3).map { _ in try stack.monitorList(From<Person>().where(\.$age < 50).orderBy(.descending(\.$age)), deliveryQueue: queue) }

        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for i in 0..<25 {
                        try await stack.async.perform { t in
                            let p = t.create(Into<Person>())
                            p.name = "w\(writer)-\(i)"
                            p.age = (writer * 31 + i * 7) % 100
                            if i % 5 == 4, let victim = try t.fetchOne(From<Person>().where(\.$name == "w\(writer)-\(i - 2)")) {
                                t.delete(victim)
                            }
                            if i % 3 == 0, let other = try t.fetchOne(From<Person>().where(\.$name == "w\(writer)-\(i - 1)")) {
                                other.age += 1
                            }
                        }
                    }
                }
            }
            group.addTask {
                for _ in 0..<200 {
                    _ = monitor.numberOfObjects()
                    _ = monitor[0]?.name
                    _ = publisher.snapshot.count
                }
            }
            try await group.waitForAll()
        }
        // Every commit has landed; let both queues deliver what they were given.
        queue.sync {}
        publisherQueue.sync {}
        let expected = try stack.fetchAll(clauses).compactMap { $0.cs_id() }
        #expect(expected.count > 50)
        #expect(monitor.objectIDsInAllSections() == expected)
        #expect(publisher.snapshot.itemIDs == expected)
        #expect(observer.problems.isEmpty)
        #expect(observer.batches > 0)
        for other in objectMonitors {
            #expect(other.objectIDsInAllSections() == (try stack.fetchAll(From<Person>().where(\.$age < 50).orderBy(.descending(\.$age)))).compactMap { $0.cs_id() })
        }
    }
}
