import Foundation
import Testing
@testable import CoreStore
import CoreStoreStorage

/// A filter that reads related objects: a change to one of them re-examines the listed objects
/// it points back at (through the inverse), and the list stays what a fresh fetch gives.
@Suite("ListMonitor, related changes")
struct ListMonitorRelatedChangeTests {
    /// Dogs whose master is called Ann: renaming masters moves dogs in and out of the list.
    @Test(arguments: StoreKind.allCases)
    func renamingAMasterMovesItsDogsInAndOut(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try stack.perform(synchronous: { t in
            let ann = t.create(Into<Person>())
            ann.name = "Ann"
            ann.age = 1
            let bob = t.create(Into<Person>())
            bob.name = "Bob"
            bob.age = 2
            for (name, master) in [("Fido", ann), ("Rex", ann), ("Tom", bob)] {
                let dog = t.create(Into<Dog>())
                dog.name = name
                dog.master = master
            }
        })
        let monitor = try stack.monitorList(From<Dog>().where((\Dog.$master ~ \.$name) == "Ann").orderBy(.ascending(\.$name)), deliveryQueue: makeDeliveryQueue())
        let recorder = ListRecorder<Dog> { $0.name }
        monitor.addObserver(recorder)
        #expect(monitor.objectsInAllSections().map(\.name) == ["Fido", "Rex"])

        try rename(stack, "Bob", to: "Ann")
        #expect(recorder.events == ["willChange", "insert Tom [0,2]", "didChange"])
        recorder.reset()
        try rename(stack, "Ann", to: "Zoe", firstOnly: true)
        #expect(recorder.events == ["willChange", "delete Fido [0,0]", "delete Rex [0,1]", "didChange"])
        #expect(monitor.objectsInAllSections().map(\.name) == ["Tom"])

        // A change the filter does not read changes nothing.
        recorder.reset()
        try stack.perform(synchronous: { t in
            for person in try t.fetchAll(From<Person>()) { person.age += 1 }
        })
        #expect(recorder.events.isEmpty)
        let fetched = try stack.fetchAll(From<Dog>().where((\Dog.$master ~ \.$name) == "Ann").orderBy(.ascending(\.$name)))
        #expect(monitor.objectsInAllSections().map(\.name) == fetched.map(\.name))
    }

    /// Deleting the related object nullifies the relationship: its dogs leave the list.
    @Test(arguments: StoreKind.allCases)
    func deletingTheMasterTakesItsDogsOut(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertAnnAndFido(stack)
        let monitor = try stack.monitorList(From<Dog>().where((\Dog.$master ~ \.$name) == "Ann").orderBy(.ascending(\.$name)), deliveryQueue: makeDeliveryQueue())
        let recorder = ListRecorder<Dog> { $0.name }
        monitor.addObserver(recorder)
        try stack.perform(synchronous: { t in
            // Break the cascade first so that the dog survives its master.
            for dog in try t.fetchAll(From<Dog>()) { dog.master = nil }
            t.delete(try t.fetchAll(From<Person>()))
        })
        #expect(recorder.events == ["willChange", "delete Fido [0,0]", "didChange"])
        #expect(monitor.numberOfObjects() == 0)
    }

    /// A relationship without an inverse gives no way back to the listed objects: the monitor
    /// re-reads its list, with the same result.
    @Test(arguments: StoreKind.allCases)
    func aRelationshipWithoutAnInverseStillFollowsChanges(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try stack.perform(synchronous: { t in
            let ann = t.create(Into<Person>())
            ann.name = "Ann"
            let bob = t.create(Into<Person>())
            bob.name = "Bob"
            bob.friends = [ann]
            let dog = t.create(Into<Dog>())
            dog.name = "Fido"
            dog.master = bob
        })
        let query = try ListQuery(From<Dog>().where((\Dog.$master ~ \.$name) == "Ann").specification(), sectionKey: nil, stack: stack)
        #expect(query.inverseLinks?["Person"] != nil)
        let withoutInverse = try ListQuery(From<Person>().where((\Person.$friends ~ \.$name).any() == "Zed").specification(), sectionKey: nil, stack: stack)
        #expect(withoutInverse.inverseLinks == nil)
        let monitor = try stack.monitorList(From<Person>().where((\Person.$friends ~ \.$name).any() == "Zed").orderBy(.ascending(\.$name)), deliveryQueue: makeDeliveryQueue())
        let recorder = ListRecorder<Person> { $0.name }
        monitor.addObserver(recorder)
        try rename(stack, "Ann", to: "Zed")
        #expect(recorder.events == ["willChange", "insert Bob [0,0]", "didChange"])
    }

    private func rename(_ stack: DataStack, _ name: String, to newName: String, firstOnly: Bool = false) throws {
        try stack.perform(synchronous: { t in
            let people = try t.fetchAll(From<Person>().where(\.$name == name).orderBy(.ascending(\.$age)))
            for person in firstOnly ? Array(people.prefix(1)) : people { person.name = newName }
        })
    }
}
