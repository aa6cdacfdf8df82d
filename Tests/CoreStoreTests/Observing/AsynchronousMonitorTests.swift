import Foundation
import Testing
@testable import CoreStore
import CoreStoreKeyValue

/// `monitorList(createAsynchronously:…)` and `monitorSectionedList(createAsynchronously:…)`.
@Suite("List monitors created asynchronously")
struct AsynchronousMonitorTests {
    /// A serial queue that knows itself.
    final class MarkedQueue: @unchecked Sendable {
        let queue = makeDeliveryQueue()
        private let key = DispatchSpecificKey<Bool>()
        init() { queue.setSpecific(key: key, value: true) }
        var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
    }

    /// What the callbacks got.
    final class Outcome<O: CoreStoreObject>: @unchecked Sendable {
        let lock = NSLock()
        var monitor: ListMonitor<O>?
        var error: CoreStoreError?
        var onItsQueue = false
        let done = DispatchSemaphore(value: 0)
    }

    @Test(arguments: StoreKind.allCases)
    func theMonitorArrivesFilledOnItsQueueAndFollowsCommits(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Bob", 2), ("Ann", 1)])
        let marked = MarkedQueue()
        let outcome = Outcome<Person>()
        let recorder = ListRecorder<Person> { $0.name }
        try stack.monitorList(
            createAsynchronously: { monitor in
                outcome.lock.withLock {
                    outcome.monitor = monitor
                    outcome.onItsQueue = marked.isCurrent
                }
                monitor.addObserver(recorder)
                outcome.done.signal()
            },
            From<Person>(), OrderBy<Person>(.ascending(\.$name)),
            deliveryQueue: marked.queue
        )
        outcome.done.wait()
        let monitor = try #require(outcome.lock.withLock { outcome.monitor })
        #expect(outcome.lock.withLock { outcome.onItsQueue })
        #expect(sectionNames(monitor) == [["Ann", "Bob"]])
        try insertPeople(stack, [("Cid", 3)])
        #expect(recorder.events == ["willChange", "insert Cid [0,2]", "didChange"])
    }

    @Test(arguments: StoreKind.allCases)
    func aSectionedChainArrivesInSections(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Ann", 30), ("Bob", 40), ("Cid", 30)])
        let outcome = Outcome<Person>()
        try stack.monitorSectionedList(
            createAsynchronously: { monitor in
                outcome.lock.withLock { outcome.monitor = monitor }
                outcome.done.signal()
            },
            From<Person>().sectionBy(\.$age).orderBy(.ascending(\.$age), .ascending(\.$name)),
            deliveryQueue: makeDeliveryQueue()
        )
        outcome.done.wait()
        let monitor = try #require(outcome.lock.withLock { outcome.monitor })
        #expect(sectionNames(monitor) == [["Ann", "Cid"], ["Bob"]])
    }

    @Test func aRequestTheSchemaRejectsThrowsAtOnce() throws {
        let stack = try makeStack(.inMemory)
        #expect(throws: CoreStoreError.self) {
            try stack.monitorList(createAsynchronously: { (_: ListMonitor<Person>) in Issue.record("created") }, From<Person>(), Where<Person>("nosuchkey == 1"))
        }
        #expect(throws: CoreStoreError.self) {
            try stack.monitorSectionedList(createAsynchronously: { _ in Issue.record("created") }, From<Person>(), SectionBy<Person>(\.$age), OrderBy<Person>(.ascending(\.$name)))
        }
    }

    @Test func aFailedFirstFetchGoesToFailure() throws {
        let engine = FaultInjectingKeyValueStore(base: MemoryKeyValueStore())
        let stack = DataStack(makeSchema())
        try stack.addStorageAndWait(KeyValueStorage(engine: engine))
        try insertPeople(stack, [("Ann", 1)])
        engine.failNext(.read, after: 0, with: .ioError)
        let outcome = Outcome<Person>()
        try stack.monitorList(
            createAsynchronously: { monitor in
                outcome.lock.withLock { outcome.monitor = monitor }
                outcome.done.signal()
            },
            From<Person>(), OrderBy<Person>(.ascending(\.$name)),
            deliveryQueue: makeDeliveryQueue(),
            failure: { error in
                outcome.lock.withLock { outcome.error = error }
                outcome.done.signal()
            }
        )
        outcome.done.wait()
        #expect(outcome.lock.withLock { outcome.monitor } == nil)
        let error = try #require(outcome.lock.withLock { outcome.error })
        #expect("\(error)".contains("input/output error"))
        // The stack is unaffected: the next monitor reads the list.
        engine.clearFaults()
        #expect(try stack.monitorList(From<Person>().orderBy(.ascending(\.$name))).numberOfObjects() == 1)
    }
}
