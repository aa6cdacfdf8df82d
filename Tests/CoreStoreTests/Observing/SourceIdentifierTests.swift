import Foundation
import Testing
@testable import CoreStore

/// Records, for each callback, the `sourceIdentifier` it carried.
private final class SourceRecorder: ListObjectObserver, ObjectObserver, @unchecked Sendable {
    typealias ListEntityType = Person
    typealias ObjectEntityType = Person
    private let lock = NSLock()
    private var _events: [String] = []
    var events: [String] { lock.withLock { _events } }

    private func record(_ event: String, _ source: Any?) {
        lock.withLock { _events.append("\(event) \(source.map { "\($0)" } ?? "nil")") }
    }

    func listMonitorWillChange(_ monitor: ListMonitor<Person>, sourceIdentifier: Any?) { record("willChange", sourceIdentifier) }
    func listMonitorDidChange(_ monitor: ListMonitor<Person>, sourceIdentifier: Any?) { record("didChange", sourceIdentifier) }
    func listMonitorWillRefetch(_ monitor: ListMonitor<Person>, sourceIdentifier: Any?) { record("willRefetch", sourceIdentifier) }
    func listMonitorDidRefetch(_ monitor: ListMonitor<Person>, sourceIdentifier: Any?) { record("didRefetch", sourceIdentifier) }
    func listMonitor(_ monitor: ListMonitor<Person>, didInsertObject object: Person, toIndexPath indexPath: IndexPath, sourceIdentifier: Any?) {
        record("insert \(object.name)", sourceIdentifier)
    }
    func listMonitor(_ monitor: ListMonitor<Person>, didUpdateObject object: Person, atIndexPath indexPath: IndexPath, sourceIdentifier: Any?) {
        record("update \(object.name)", sourceIdentifier)
    }
    func objectMonitor(_ monitor: ObjectMonitor<Person>, didUpdateObject object: Person, changedPersistentKeys: Set<String>, sourceIdentifier: Any?) {
        record("object \(changedPersistentKeys.sorted())", sourceIdentifier)
    }
}

/// An observer that implements only the forms without `sourceIdentifier`: they still run.
private final class PlainRecorder: ListObserver, @unchecked Sendable {
    typealias ListEntityType = Person
    private let lock = NSLock()
    private var _count = 0
    var count: Int { lock.withLock { _count } }
    func listMonitorDidChange(_ monitor: ListMonitor<Person>) { lock.withLock { _count += 1 } }
}

@Suite("sourceIdentifier reaches the observers of the commit")
struct SourceIdentifierTests {
    @Test(arguments: StoreKind.allCases)
    func everyTransactionKindPassesItsIdentifier(_ kind: StoreKind) async throws {
        let stack = try makeStack(kind)
        try insertAnnAndFido(stack)
        let ann = try #require(try stack.fetchOne(From<Person>().where(\.$name == "Ann")))
        let queue = makeDeliveryQueue()
        let list = try stack.monitorList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: queue)
        let object = try stack.monitorObject(ann, deliveryQueue: queue)
        let recorder = SourceRecorder(), plain = PlainRecorder()
        list.addObserver(recorder)
        list.addObserver(plain)
        object.addObserver(recorder)

        try stack.perform(synchronous: { t in t.create(Into<Person>()).name = "Bob" }, sourceIdentifier: "sync")
        let unsafe = stack.beginUnsafe(sourceIdentifier: 7)
        unsafe.edit(ann)?.age = 31
        try unsafe.commitAndWait()
        try stack.perform(synchronous: { t in t.create(Into<Person>()).name = "Cy" })
        let notCy: Where<Person> = \.$name != "Cy"
        try list.refetch(notCy, OrderBy<Person>(.ascending(\.$name)), sourceIdentifier: "refetch")
        queue.sync {}

        // The list's callbacks in commit order; the object monitor's beside them.
        #expect(recorder.events.filter { !$0.hasPrefix("object") } == [
            "willChange sync", "insert Bob sync", "didChange sync",
            "willChange 7", "update Ann 7", "didChange 7",
            "willChange nil", "insert Cy nil", "didChange nil",
            "willRefetch refetch", "didRefetch refetch",
        ])
        #expect(recorder.events.filter { $0.hasPrefix("object") } == ["object [\"age\"] 7"])
        #expect(plain.count == 3)
        #expect(unsafe.sourceIdentifier as? Int == 7)
    }

    @Test(arguments: StoreKind.allCases)
    func publishersPassTheIdentifierToTheirCallbacks(_ kind: StoreKind) async throws {
        let stack = try makeStack(kind)
        try insertAnnAndFido(stack)
        let ann = try #require(try stack.fetchOne(From<Person>().where(\.$name == "Ann")))
        let queue = makeDeliveryQueue()
        let list = try stack.publishList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: queue)
        let one = ann.asPublisher(in: stack)
        let seen = LockedStrings()
        list.addObserver(seen, notifyInitial: true, initialSourceIdentifier: "first") { _, source in seen.append("list \(source ?? "nil")") }
        one.addObserver(seen) { _, source in seen.append("object \(source ?? "nil")") }
        try stack.perform(synchronous: { t in t.edit(ann)?.age = 40 }, sourceIdentifier: "edit")
        try list.refetch(From<Person>().where(\.$age > 35).orderBy(.ascending(\.$name)), sourceIdentifier: "older")
        queue.sync {}
        #expect(seen.values.filter { $0.hasPrefix("list") } == ["list first", "list edit", "list older"])
        #expect(list.snapshot.count == 1)
        #expect(throws: CoreStoreError.self) {
            try list.refetch(From<Person>().sectionBy(\.$age).orderBy(.ascending(\.$age)), sourceIdentifier: nil)
        }
    }

    @Test func clauseFormsCoreStoreUsers() throws {
        let stack = try makeStack(.inMemory)
        try insertAnnAndFido(stack)
        #expect(try stack.fetchCount(From<Person>(), Where<Person>()) == 1)
        let names = try stack.queryAttributes(
            From<Person>().select(NSDictionary.self, .attribute(\.$name)).where(format: "%K BEGINSWITH[c] %@", "name", "a")
        )
        #expect(names.count == 1)
        let sections = try stack.monitorSectionedList(
            From<Person>().sectionBy(\.$age).where(format: "name == %@", "Ann").orderBy(.ascending(\.$age)),
            deliveryQueue: makeDeliveryQueue()
        )
        #expect(sections.numberOfObjects() == 1)
        let url: URL = URL(fileURLWithPath: "/tmp")        // Foundation through `import CoreStore`
        #expect(url.path == "/tmp")
    }

    @Test func aSnapshotConvertsToItsObject() throws {
        let stack = try makeStack(.inMemory)
        try insertAnnAndFido(stack)
        let ann = try #require(try stack.fetchOne(From<Person>().where(\.$name == "Ann")))
        let snapshot = try #require(ann.asSnapshot(in: stack))
        try stack.perform(synchronous: { t in
            let editable = try #require(snapshot.asEditable(in: t))
            editable.age = 50
        })
        #expect(snapshot.asReadOnly(in: stack)?.age == 50)
        #expect(snapshot.asSnapshot(in: stack)?.$age == 50)
        #expect(snapshot.$age == 0)
        #expect(snapshot.asPublisher(in: stack).objectID == snapshot.objectID)
    }
}

/// A thread-safe list of strings, also the owner of publisher callbacks.
final class LockedStrings: @unchecked Sendable {
    private let lock = NSLock()
    private var _values: [String] = []
    var values: [String] { lock.withLock { _values } }
    func append(_ value: String) { lock.withLock { _values.append(value) } }
}
