import Foundation
import Testing
@testable import CoreStore

@Suite("ObjectMonitor")
struct ObjectMonitorTests {
    @Test(arguments: StoreKind.allCases)
    func reportsExactlyTheChangedKeysAndTheDeletion(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Ann", 30), ("Bob", 40)])
        let ann = try #require(try stack.fetchOne(From<Person>().where(\.$name == "Ann")))
        let monitor = try stack.monitorObject(ann, deliveryQueue: makeDeliveryQueue())
        let recorder = ObjectRecorder<Person> { "\($0.name)/\($0.age)" }
        monitor.addObserver(recorder)

        try stack.perform(synchronous: { t in
            let ann = try #require(t.edit(ann))
            ann.age = 31
            ann.nickname = "A"
        })
        // Equal values, another object, another entity: nothing.
        try stack.perform(synchronous: { t in
            let ann = try #require(t.edit(ann))
            ann.age = 31
            for bob in try t.fetchAll(From<Person>().where(\.$name == "Bob")) { bob.age = 41 }
            t.create(Into<Cat>()).name = "Tom"
        })
        #expect(recorder.events == ["willUpdate Ann/31", "didUpdate Ann/31 [\"age\", \"nickname\"]"])
        #expect(monitor.object?.age == 31)
        #expect(!monitor.isObjectDeleted)

        try stack.perform(synchronous: { t in
            let ann = try #require(t.edit(ann))
            ann.age = 32
            t.delete(ann)
        })
        // The deleted object shows its last committed values.
        #expect(recorder.events.last == "didDelete Ann/31")
        #expect(monitor.isObjectDeleted)
        #expect(monitor.object == nil)
    }

    @Test func relationshipChangesNameTheRelationship() throws {
        let stack = try makeStack(.inMemory)
        try insertPeople(stack, [("Ann", 30)])
        let ann = try #require(try stack.fetchOne(From<Person>()))
        let monitor = try stack.monitorObject(ann, deliveryQueue: makeDeliveryQueue())
        let recorder = ObjectRecorder<Person> { $0.name }
        monitor.addObserver(recorder)
        try stack.perform(synchronous: { t in
            let dog = t.create(Into<Dog>())
            dog.master = t.edit(ann)
        })
        #expect(recorder.events == ["willUpdate Ann", "didUpdate Ann [\"pets\"]"])
    }

    @Test func uncommittedObjectsCannotBeMonitored() throws {
        let stack = try makeStack(.inMemory)
        let transaction = stack.beginUnsafe()
        let person = transaction.create(Into<Person>())
        #expect(throws: CoreStoreError.self) { try stack.monitorObject(person) }
    }

    @Test func changesStreamEndsAfterTheDeletion() async throws {
        let stack = try makeStack(.sqlite)
        try insertPeople(stack, [("Ann", 30)])
        let ann = try #require(try stack.fetchOne(From<Person>()))
        let monitor = try stack.monitorObject(ann, deliveryQueue: makeDeliveryQueue())
        let stream = monitor.changes
        try stack.perform(synchronous: { t in t.edit(ann)?.age = 5 })
        try stack.perform(synchronous: { t in
            let ann = try #require(t.edit(ann))
            t.delete(ann)
        })
        #expect(monitor.isObjectDeleted)
        var received: [ObjectChange] = []
        for await change in stream { received.append(change) }
        #expect(received == [.updated(changedPersistentKeys: ["age"]), .deleted])
    }
}
