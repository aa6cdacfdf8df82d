import Foundation
import Testing
@testable import CoreStore

@Suite("ListMonitor")
struct ListMonitorTests {
    /// A stack, a monitor of people sectioned by age (ascending, then name) and its recorder.
    func sectionedFixture(_ kind: StoreKind, _ people: [(String, Int)] = []) throws -> (DataStack, ListMonitor<Person>, ListRecorder<Person>) {
        let stack = try makeStack(kind)
        if !people.isEmpty { try insertPeople(stack, people) }
        let monitor = try stack.monitorSectionedList(
            From<Person>().sectionBy(\.$age).orderBy(.ascending(\.$age), .ascending(\.$name)),
            deliveryQueue: makeDeliveryQueue()
        )
        let recorder = ListRecorder<Person> { $0.name }
        monitor.addObserver(recorder)
        return (stack, monitor, recorder)
    }

    func edit(_ stack: DataStack, _ name: String, _ change: @escaping (Person) -> Void) throws {
        try stack.perform(synchronous: { t in
            for p in try t.fetchAll(From<Person>().where(\.$name == name)) { change(p) }
        })
    }

    @Test(arguments: StoreKind.allCases)
    func insertIntoEmptyListReportsTheSectionThenTheObject(_ kind: StoreKind) throws {
        let (stack, monitor, recorder) = try sectionedFixture(kind)
        #expect(monitor.numberOfSections() == 0)
        try insertPeople(stack, [("Ann", 30)])
        #expect(recorder.events == ["willChange", "insertSection 30 0", "insert Ann [0,0]", "didChange"])
        #expect(sectionNames(monitor) == [["Ann"]])
    }

    @Test(arguments: StoreKind.allCases)
    func insertsIntoTwoSections(_ kind: StoreKind) throws {
        let (stack, monitor, recorder) = try sectionedFixture(kind, [("Ann", 30), ("Cid", 50)])
        try insertPeople(stack, [("Bob", 30), ("Dan", 40), ("Eve", 50)])
        #expect(recorder.events == ["willChange", "insertSection 40 1", "insert Bob [0,1]", "insert Dan [1,0]", "insert Eve [2,1]", "didChange"])
        #expect(sectionNames(monitor) == [["Ann", "Bob"], ["Dan"], ["Cid", "Eve"]])
    }

    @Test(arguments: StoreKind.allCases)
    func updateInPlace(_ kind: StoreKind) throws {
        let (stack, monitor, recorder) = try sectionedFixture(kind, [("Ann", 30), ("Bob", 30)])
        try edit(stack, "Bob") { $0.nickname = "B" }
        #expect(recorder.events == ["willChange", "update Bob [0,1]", "didChange"])
        #expect(monitor[1]?.nickname == "B")
    }

    @Test(arguments: StoreKind.allCases)
    func moveWithinASection(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Ann", 1), ("Bob", 2), ("Cid", 3)])
        let monitor = try stack.monitorList(From<Person>().orderBy(.ascending(\.$age)), deliveryQueue: makeDeliveryQueue())
        let recorder = ListRecorder<Person> { $0.name }
        monitor.addObserver(recorder)
        try edit(stack, "Ann") { $0.age = 10 }
        #expect(recorder.events == ["willChange", "move Ann [0,0]->[0,2]", "didChange"])
        #expect(sectionNames(monitor) == [["Bob", "Cid", "Ann"]])
        recorder.reset()
        // A changed sort value that keeps the order is an update, not a move.
        try edit(stack, "Bob") { $0.age = 2 }
        #expect(recorder.events.isEmpty)
        try edit(stack, "Cid") { $0.age = 4 }
        #expect(recorder.events == ["willChange", "update Cid [0,1]", "didChange"])
    }

    @Test(arguments: StoreKind.allCases)
    func moveAcrossSectionsThatBothSurvive(_ kind: StoreKind) throws {
        let (stack, monitor, recorder) = try sectionedFixture(kind, [("Ann", 30), ("Bob", 30), ("Cid", 40)])
        try edit(stack, "Ann") { $0.age = 40 }
        #expect(recorder.events == ["willChange", "move Ann [0,0]->[1,0]", "didChange"])
        #expect(sectionNames(monitor) == [["Bob"], ["Ann", "Cid"]])
    }

    @Test(arguments: StoreKind.allCases)
    func sectionCreationAndRemoval(_ kind: StoreKind) throws {
        let (stack, monitor, recorder) = try sectionedFixture(kind, [("Ann", 30), ("Bob", 40)])
        try edit(stack, "Ann") { $0.age = 50 }
        #expect(recorder.events == ["willChange", "delete Ann [0,0]", "deleteSection 30 0", "insertSection 50 1", "insert Ann [1,0]", "didChange"])
        #expect(sectionNames(monitor) == [["Bob"], ["Ann"]])
    }

    @Test(arguments: StoreKind.allCases)
    func deletingAWholeSection(_ kind: StoreKind) throws {
        let (stack, monitor, recorder) = try sectionedFixture(kind, [("Ann", 30), ("Bob", 40), ("Cid", 40), ("Dan", 50)])
        try stack.perform(synchronous: { t in _ = try t.deleteAll(From<Person>().where(\.$age == 40)) })
        #expect(recorder.events == ["willChange", "delete Bob [1,0]", "delete Cid [1,1]", "deleteSection 40 1", "didChange"])
        #expect(sectionNames(monitor) == [["Ann"], ["Dan"]])
    }

    @Test(arguments: StoreKind.allCases)
    func refetchReplacesTheList(_ kind: StoreKind) throws {
        let (stack, monitor, recorder) = try sectionedFixture(kind, [("Ann", 30), ("Bob", 40)])
        let filter: Where<Person> = \.$age > 35
        try monitor.refetch(filter, OrderBy<Person>(.ascending(\.$age)))
        monitor.delivery.flush()
        #expect(recorder.events == ["willRefetch", "didRefetch"])
        #expect(sectionNames(monitor) == [["Bob"]])
        #expect(!monitor.isPendingRefetch)
        recorder.reset()
        try insertPeople(stack, [("Cid", 20), ("Dan", 60)])
        #expect(recorder.events == ["willChange", "insertSection 60 1", "insert Dan [1,0]", "didChange"])
    }

    @Test(arguments: StoreKind.allCases)
    func commitsThatChangeNothingShownFireNothing(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Ann", 30), ("Bob", 40)])
        let monitor = try stack.monitorList(From<Person>().where(\.$age > 35).orderBy(.ascending(\.$name)), deliveryQueue: makeDeliveryQueue())
        let recorder = ListRecorder<Person> { $0.name }
        monitor.addObserver(recorder)
        // Another entity.
        try stack.perform(synchronous: { t in t.create(Into<Cat>()).name = "Tom" })
        // An equal value.
        try edit(stack, "Bob") { $0.age = 40 }
        // An object outside the filter that stays outside.
        try edit(stack, "Ann") { $0.age = 31 }
        // A transaction with no changes.
        try stack.perform(synchronous: { _ in })
        #expect(recorder.events.isEmpty)
        #expect(sectionNames(monitor) == [["Bob"]])
        // Crossing the filter in both directions.
        try edit(stack, "Ann") { $0.age = 36 }
        try edit(stack, "Bob") { $0.age = 20 }
        #expect(recorder.events == ["willChange", "insert Ann [0,0]", "didChange", "willChange", "delete Bob [0,1]", "didChange"])
    }

    @Test(arguments: StoreKind.allCases)
    func aFilterThroughARelationshipFollowsTheRelatedObjects(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertAnnAndFido(stack)
        let monitor = try stack.monitorList(From<Person>().where((\Person.$pets ~ \.$name).any() == "Rex").orderBy(.ascending(\.$name)), deliveryQueue: makeDeliveryQueue())
        let recorder = ListRecorder<Person> { $0.name }
        monitor.addObserver(recorder)
        #expect(monitor.numberOfObjects() == 0)
        try stack.perform(synchronous: { t in
            for dog in try t.fetchAll(From<Dog>()) { dog.name = "Rex" }
        })
        #expect(recorder.events == ["willChange", "insert Ann [0,0]", "didChange"])
    }

    @Test(arguments: StoreKind.allCases)
    func accessors(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Ann", 30), ("Bob", 30), ("Cid", 40)])
        let monitor = try stack.monitorSectionedList(
            From<Person>(), SectionBy<Person>(\.$age, sectionIndexTransformer: { $0.map { "#\($0)" } }),
            OrderBy<Person>(.descending(\.$age), .ascending(\.$name)), deliveryQueue: makeDeliveryQueue()
        )
        #expect(monitor.numberOfSections() == 2)
        #expect(monitor.numberOfObjects() == 3)
        #expect(monitor.numberOfObjects(in: 1) == 2)
        #expect(monitor.numberOfObjects(in: 7) == 0)
        #expect(monitor.hasObjects() && monitor.hasObjects(in: 0) && !monitor.hasObjects(in: 2))
        #expect(monitor[0]?.name == "Cid")
        #expect(monitor[3] == nil && monitor[-1] == nil)
        #expect(monitor[1, 1]?.name == "Bob")
        #expect(monitor[IndexPath(item: 0, section: 1)]?.name == "Ann")
        #expect(monitor[IndexPath(item: 5, section: 1)] == nil)
        #expect(monitor.objectsInAllSections().map(\.name) == ["Cid", "Ann", "Bob"])
        let bob = try #require(try stack.fetchOne(From<Person>().where(\.$name == "Bob")))
        #expect(monitor.index(of: bob) == 2)
        #expect(monitor.indexPath(of: bob) == IndexPath(item: 1, section: 1))
        let info = try #require(monitor.sectionInfo(at: 1))
        #expect(info.name == "30" && info.indexTitle == "#30" && info.numberOfObjects == 2 && info.objects.map(\.name) == ["Ann", "Bob"])
        #expect(monitor.sectionInfo(at: 2) == nil)
        #expect(monitor.sections().map(\.name) == ["40", "30"])
        #expect(monitor.sectionIndexTitles() == ["#40", "#30"])
    }

    @Test func aSectionedListMustBeOrderedByItsSectionKeyFirst() throws {
        let stack = try makeStack(.inMemory)
        #expect(throws: CoreStoreError.self) {
            try stack.monitorSectionedList(From<Person>().sectionBy(\.$age).orderBy(.ascending(\.$name)))
        }
        let monitor = try stack.monitorSectionedList(From<Person>().sectionBy(\.$age), deliveryQueue: makeDeliveryQueue())
        try insertPeople(stack, [("Ann", 40), ("Bob", 30)])
        #expect(sectionNames(monitor) == [["Bob"], ["Ann"]])
    }

    @Test func badRequestsThrow() throws {
        let stack = try makeStack(.inMemory)
        #expect(throws: CoreStoreError.self) { try stack.monitorList(From<Person>().where(Where<Person>("nosuchkey == 1"))) }
        #expect(throws: CoreStoreError.self) { try stack.monitorList(From<Person>().tweak { $0.fetchLimit = -3 }) }
    }

    @Test func observersAreHeldWeaklyAndCanBeRemoved() throws {
        let stack = try makeStack(.inMemory)
        let monitor = try stack.monitorList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: makeDeliveryQueue())
        let kept = ListRecorder<Person> { $0.name }
        let removed = ListRecorder<Person> { $0.name }
        weak var released: ListRecorder<Person>?
        do {
            let temporary = ListRecorder<Person> { $0.name }
            released = temporary
            monitor.addObserver(temporary)
        }
        monitor.addObserver(kept)
        monitor.addObserver(removed)
        monitor.removeObserver(removed)
        try insertPeople(stack, [("Ann", 1)])
        #expect(released == nil)
        #expect(kept.events == ["willChange", "insert Ann [0,0]", "didChange"])
        #expect(removed.events.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func aMonitorOfAnAbstractEntityFollowsItsSubentities(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let monitor = try stack.monitorList(From<Animal>().orderBy(.ascending(\.$name)), deliveryQueue: makeDeliveryQueue())
        let recorder = ListRecorder<Animal> { "\($0.name):\(type(of: $0))" }
        monitor.addObserver(recorder)
        try stack.perform(synchronous: { t in
            t.create(Into<Dog>()).name = "Rex"
            t.create(Into<Cat>()).name = "Tom"
            t.create(Into<Person>()).name = "Ann"
        })
        #expect(recorder.events == ["willChange", "insert Rex:Dog [0,0]", "insert Tom:Cat [0,1]", "didChange"])
        try stack.perform(synchronous: { t in
            for cat in try t.fetchAll(From<Cat>()) { cat.name = "Alf" }
        })
        #expect(recorder.events.suffix(3) == ["willChange", "move Alf:Cat [0,1]->[0,0]", "didChange"])
        #expect(monitor.objectsInAllSections().map(\.name) == ["Alf", "Rex"])
    }
}
