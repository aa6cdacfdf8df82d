import Foundation
import Testing
@testable import CoreStore

@Suite("Observation delivery")
struct DeliveryTests {
    @Test func performSynchronousFromTheDeliveryQueueDeliversBeforeReturning() throws {
        let stack = try makeStack(.inMemory)
        let queue = makeDeliveryQueue()
        let monitor = try stack.monitorList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: queue)
        let recorder = ListRecorder<Person> { $0.name }
        monitor.addObserver(recorder)
        let seen: [String] = try queue.sync {
            try insertPeople(stack, [("Ann", 1)])
            return recorder.events
        }
        #expect(seen == ["willChange", "insert Ann [0,0]", "didChange"])
    }

    @Test func performSynchronousInsideACallbackDoesNotDeadlock() throws {
        final class Reentrant: ListObserver, @unchecked Sendable {
            typealias ListEntityType = Person
            let stack: DataStack
            var nested = 0
            init(stack: DataStack) { self.stack = stack }
            func listMonitorDidChange(_ monitor: ListMonitor<Person>) {
                guard nested == 0 else { return }
                nested += 1
                try? insertPeople(stack, [("Nested", 2)])
            }
        }
        let stack = try makeStack(.inMemory)
        let queue = makeDeliveryQueue()
        let monitor = try stack.monitorList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: queue)
        let observer = Reentrant(stack: stack)
        monitor.addObserver(observer)
        let recorder = ListRecorder<Person> { $0.name }
        monitor.addObserver(recorder)
        try insertPeople(stack, [("Ann", 1)])
        queue.sync {}
        queue.sync {}
        #expect(recorder.events == ["willChange", "insert Ann [0,0]", "didChange", "willChange", "insert Nested [0,1]", "didChange"])
    }

    /// A waiting `perform(synchronous:)` leaves an idle delivery queue asleep and delivers on
    /// the calling thread (Dispatch runs a `sync` on an idle queue there); an object monitor
    /// and a list monitor on two queues are both told before it returns. Without waiting, the
    /// queue's own thread delivers.
    @Test func aWaitingCommitDeliversOnTheCallingThread() throws {
        final class ThreadRecorder: ListObserver, ObjectObserver, @unchecked Sendable {
            typealias ListEntityType = Person
            typealias ObjectEntityType = Person
            private let lock = NSLock()
            private var threads: [pthread_t] = []
            var recorded: [pthread_t] { lock.withLock { threads } }
            private func record() { lock.withLock { threads.append(pthread_self()) } }
            func listMonitorDidChange(_ monitor: ListMonitor<Person>) { record() }
            func objectMonitor(_ monitor: ObjectMonitor<Person>, didUpdateObject object: Person, changedPersistentKeys: Set<String>) { record() }
        }
        let stack = try makeStack(.inMemory)
        try insertPeople(stack, [("Ann", 1)])
        let ann = try #require(try stack.fetchOne(From<Person>()))
        let listQueue = makeDeliveryQueue(), objectQueue = makeDeliveryQueue()
        let listMonitor = try stack.monitorList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: listQueue)
        let objectMonitor = try stack.monitorObject(ann, deliveryQueue: objectQueue)
        let recorder = ThreadRecorder()
        listMonitor.addObserver(recorder)
        objectMonitor.addObserver(recorder)
        try stack.perform(synchronous: { t in t.edit(ann)?.name = "Anne" })
        let caller = pthread_self()
        #expect(recorder.recorded.count == 2)
        #expect(recorder.recorded.allSatisfy { pthread_equal($0, caller) != 0 })

        try stack.perform(synchronous: { t in t.edit(ann)?.name = "Anna" }, waitForAllObservers: false)
        listQueue.sync {}
        objectQueue.sync {}
        #expect(recorder.recorded.count == 4)
        #expect(recorder.recorded.suffix(2).allSatisfy { pthread_equal($0, caller) == 0 })
    }

    @Test func withoutWaitingTheCallerMayReturnFirstButEverythingArrives() throws {
        let stack = try makeStack(.inMemory)
        let queue = makeDeliveryQueue()
        let monitor = try stack.monitorList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: queue)
        let recorder = ListRecorder<Person> { $0.name }
        monitor.addObserver(recorder)
        for i in 0..<20 {
            try stack.perform(synchronous: { t in t.create(Into<Person>()).name = "P\(i)" }, waitForAllObservers: false)
        }
        queue.sync {}
        #expect(recorder.events.filter { $0 == "didChange" }.count == 20)
        #expect(monitor.numberOfObjects() == 20)
    }

    @Test func theMainQueueIsTheDefault() throws {
        // The test runner does not service the main queue, so only the choice is checked here;
        // `corestore demo` shows delivery on the main queue of an async main program.
        let stack = try makeStack(.inMemory)
        try insertPeople(stack, [("Ann", 1)])
        let ann = try #require(try stack.fetchOne(From<Person>()))
        let objectMonitor = try stack.monitorObject(ann)
        let listMonitor = try stack.monitorList(From<Person>().orderBy(.ascending(\.$name)))
        #expect(listMonitor.delivery.isMainQueue && listMonitor.delivery === ObservationDelivery.on(.main))
        #expect(objectMonitor.delivery.isMainQueue)
        #expect(!ObservationDelivery.on(makeDeliveryQueue()).isMainQueue)
    }

    @Test func changeStreamsStopWhenCancelled() async throws {
        let stack = try makeStack(.inMemory)
        let monitor = try stack.monitorList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: makeDeliveryQueue())
        let stream = monitor.changes
        #expect(monitor.subscriberCount == 1)
        let task = Task { () -> Int in
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        task.cancel()
        _ = await task.value
        #expect(monitor.subscriberCount == 0)
        try insertPeople(stack, [("Bob", 1)])
        #expect(monitor.numberOfObjects() == 1)
    }

    @Test func streamsEndWhenTheMonitorGoesAway() async throws {
        let stack = try makeStack(.inMemory)
        var monitor: ListMonitor<Person>? = try stack.monitorList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: makeDeliveryQueue())
        let stream = try #require(monitor).changes
        monitor = nil
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count == 0)
    }
}
