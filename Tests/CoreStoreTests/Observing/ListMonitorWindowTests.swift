import Foundation
import Testing
@testable import CoreStore

/// Replays a flat list's callbacks on a copy of its names, in the order a table view applies a
/// batch: removals at their old index paths, then insertions at their new ones.
final class ListReplayer: ListObjectObserver, @unchecked Sendable {
    typealias ListEntityType = Person
    private let lock = NSLock()
    private var names: [String]
    private var removals: [(Int, String)] = []
    private var insertions: [(Int, String)] = []
    private var _problems: [String] = []

    init(_ names: [String]) { self.names = names }

    var replayed: [String] { lock.withLock { names } }
    /// Removals reported at an index that held another object.
    var problems: [String] { lock.withLock { _problems } }

    func listMonitorDidChange(_ monitor: ListMonitor<Person>) {
        lock.withLock {
            for (index, name) in removals.sorted(by: { $0.0 > $1.0 }) {
                guard names.indices.contains(index), names[index] == name else {
                    _problems.append("\(name) removed at \(index) of \(names)")
                    continue
                }
                names.remove(at: index)
            }
            for (index, name) in insertions.sorted(by: { $0.0 < $1.0 }) {
                guard index <= names.count else {
                    _problems.append("\(name) inserted at \(index) of \(names)")
                    continue
                }
                names.insert(name, at: index)
            }
            removals = []
            insertions = []
        }
    }
    func listMonitor(_ monitor: ListMonitor<Person>, didInsertObject object: Person, toIndexPath indexPath: IndexPath) {
        let name = object.name
        lock.withLock { insertions.append((indexPath.item, name)) }
    }
    func listMonitor(_ monitor: ListMonitor<Person>, didDeleteObject object: Person, fromIndexPath indexPath: IndexPath) {
        let name = object.name
        lock.withLock { removals.append((indexPath.item, name)) }
    }
    func listMonitor(_ monitor: ListMonitor<Person>, didMoveObject object: Person, fromIndexPath: IndexPath, toIndexPath: IndexPath) {
        let name = object.name
        lock.withLock {
            removals.append((fromIndexPath.item, name))
            insertions.append((toIndexPath.item, name))
        }
    }
}

@Suite("ListMonitor with fetchOffset and fetchLimit")
struct ListMonitorWindowTests {
    func names(_ monitor: ListMonitor<Person>) -> [String] {
        monitor.objectsInAllSections().map(\.name)
    }

    func edit(_ stack: DataStack, _ name: String, _ change: @escaping (Person) -> Void) throws {
        try stack.perform(synchronous: { t in
            for p in try t.fetchAll(From<Person>().where(\.$name == name)) { change(p) }
        })
    }

    func delete(_ stack: DataStack, _ name: String) throws {
        try stack.perform(synchronous: { t in
            t.delete(try t.fetchAll(From<Person>().where(\.$name == name)))
        })
    }

    /// A monitor of people by name showing the 2nd and 3rd.
    func pageFixture(_ kind: StoreKind) throws -> (DataStack, ListMonitor<Person>, ListRecorder<Person>) {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Bob", 2), ("Cid", 3), ("Dan", 4), ("Eve", 5)])
        let monitor = try stack.monitorList(
            From<Person>().orderBy(.ascending(\.$name)).tweak { $0.fetchOffset = 1; $0.fetchLimit = 2 },
            deliveryQueue: makeDeliveryQueue()
        )
        let recorder = ListRecorder<Person> { $0.name }
        monitor.addObserver(recorder)
        return (stack, monitor, recorder)
    }

    @Test(arguments: StoreKind.allCases)
    func showsThePageAFetchWouldReturn(_ kind: StoreKind) throws {
        let (stack, monitor, _) = try pageFixture(kind)
        #expect(names(monitor) == ["Cid", "Dan"])
        #expect(monitor.numberOfObjects() == 2)
        let fetched = try stack.fetchAll(From<Person>().orderBy(.ascending(\.$name)).tweak { $0.fetchOffset = 1; $0.fetchLimit = 2 })
        #expect(fetched.map(\.name) == names(monitor))
    }

    @Test(arguments: StoreKind.allCases)
    func anInsertAboveThePageShiftsItDown(_ kind: StoreKind) throws {
        let (stack, monitor, recorder) = try pageFixture(kind)
        try insertPeople(stack, [("Ann", 1)])
        // Bob moves from before the page into it; Dan is pushed out below.
        #expect(recorder.events == ["willChange", "delete Dan [0,1]", "insert Bob [0,0]", "didChange"])
        #expect(names(monitor) == ["Bob", "Cid"])
    }

    @Test(arguments: StoreKind.allCases)
    func anInsertBelowThePageChangesNothing(_ kind: StoreKind) throws {
        let (stack, monitor, recorder) = try pageFixture(kind)
        try insertPeople(stack, [("Zed", 9)])
        #expect(recorder.events.isEmpty)
        #expect(names(monitor) == ["Cid", "Dan"])
    }

    @Test(arguments: StoreKind.allCases)
    func aDeleteInsideThePagePullsTheNextOneIn(_ kind: StoreKind) throws {
        let (stack, monitor, recorder) = try pageFixture(kind)
        try delete(stack, "Cid")
        #expect(recorder.events == ["willChange", "delete Cid [0,0]", "insert Eve [0,1]", "didChange"])
        #expect(names(monitor) == ["Dan", "Eve"])
    }

    @Test(arguments: StoreKind.allCases)
    func updatesInsideThePageAreReportedAndOutsideAreNot(_ kind: StoreKind) throws {
        let (stack, monitor, recorder) = try pageFixture(kind)
        try edit(stack, "Dan") { $0.nickname = "D" }
        #expect(recorder.events == ["willChange", "update Dan [0,1]", "didChange"])
        #expect(monitor[1]?.nickname == "D")
        recorder.reset()
        try edit(stack, "Eve") { $0.nickname = "E" }
        try edit(stack, "Bob") { $0.nickname = "B" }
        #expect(recorder.events.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func aTopListFollowsItsSortKey(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Ann", 10), ("Bob", 20), ("Cid", 30), ("Dan", 40)])
        let monitor = try stack.monitorList(From<Person>().orderBy(.descending(\.$age)).tweak { $0.fetchLimit = 2 }, deliveryQueue: makeDeliveryQueue())
        let recorder = ListRecorder<Person> { $0.name }
        monitor.addObserver(recorder)
        #expect(names(monitor) == ["Dan", "Cid"])
        try edit(stack, "Ann") { $0.age = 35 }
        #expect(recorder.events == ["willChange", "delete Cid [0,1]", "insert Ann [0,1]", "didChange"])
        recorder.reset()
        try edit(stack, "Ann") { $0.age = 50 }
        #expect(recorder.events == ["willChange", "move Ann [0,1]->[0,0]", "didChange"])
        #expect(names(monitor) == ["Ann", "Dan"])
    }

    @Test(arguments: StoreKind.allCases)
    func aSectionedPageMakesSectionsFromWhatItShows(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Ann", 30), ("Bob", 30), ("Cid", 40), ("Dan", 50)])
        let monitor = try stack.monitorSectionedList(
            From<Person>().sectionBy(\.$age).orderBy(.ascending(\.$age), .ascending(\.$name)).tweak { $0.fetchLimit = 3 },
            deliveryQueue: makeDeliveryQueue()
        )
        let recorder = ListRecorder<Person> { $0.name }
        monitor.addObserver(recorder)
        #expect(sectionNames(monitor) == [["Ann", "Bob"], ["Cid"]])
        try delete(stack, "Ann")
        #expect(recorder.events == ["willChange", "delete Ann [0,0]", "insertSection 50 2", "insert Dan [2,0]", "didChange"])
        #expect(sectionNames(monitor) == [["Bob"], ["Cid"], ["Dan"]])
    }

    @Test(arguments: StoreKind.allCases)
    func anOffsetPastTheEndShowsNothingUntilTheListGrows(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Ann", 1)])
        let monitor = try stack.monitorList(From<Person>().orderBy(.ascending(\.$name)).tweak { $0.fetchOffset = 2 }, deliveryQueue: makeDeliveryQueue())
        #expect(monitor.numberOfObjects() == 0)
        try insertPeople(stack, [("Bob", 2), ("Cid", 3), ("Dan", 4)])
        #expect(names(monitor) == ["Cid", "Dan"])
    }

    @Test(arguments: StoreKind.allCases)
    func refetchChangesThePage(_ kind: StoreKind) throws {
        let (_, monitor, recorder) = try pageFixture(kind)
        try monitor.refetch(OrderBy<Person>(.ascending(\.$name)), Tweak { $0.fetchOffset = 0; $0.fetchLimit = 3 })
        monitor.delivery.flush()
        #expect(recorder.events == ["willRefetch", "didRefetch"])
        #expect(names(monitor) == ["Bob", "Cid", "Dan"])
        recorder.reset()
        try monitor.refetch(OrderBy<Person>(.ascending(\.$name)))
        monitor.delivery.flush()
        #expect(names(monitor) == ["Bob", "Cid", "Dan", "Eve"])
    }

    @Test(arguments: StoreKind.allCases)
    func aPublishedPageShowsTheWindow(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Ann", 1), ("Bob", 2), ("Cid", 3)])
        let publisher = try stack.publishList(From<Person>().orderBy(.ascending(\.$name)).tweak { $0.fetchLimit = 2 }, deliveryQueue: makeDeliveryQueue())
        #expect(publisher.snapshot.numberOfItems == 2)
        try delete(stack, "Ann")
        let shown = publisher.snapshot.compactMap { $0.object?.name }
        #expect(shown == ["Bob", "Cid"])
    }

    @Test func negativeBoundsThrow() throws {
        let stack = try makeStack(.inMemory)
        #expect(throws: CoreStoreError.self) { try stack.monitorList(From<Person>().tweak { $0.fetchLimit = -1 }) }
        #expect(throws: CoreStoreError.self) { try stack.monitorList(From<Person>().tweak { $0.fetchOffset = -3 }) }
    }

    /// Random commits: after each, the callbacks replayed on the previous page give the page a
    /// fresh fetch returns.
    @Test(arguments: StoreKind.allCases)
    func callbacksReplayedGiveWhatAFetchReturns(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        var generator = SplitMix64(seed: 0x5EED)
        try insertPeople(stack, (0..<20).map { ("p\($0)", Int.random(in: 0..<30, using: &generator)) })
        let clauses = From<Person>().orderBy(.ascending(\.$age), .ascending(\.$name)).tweak { $0.fetchOffset = 4; $0.fetchLimit = 6 }
        let monitor = try stack.monitorList(clauses, deliveryQueue: makeDeliveryQueue())
        let replayer = ListReplayer(names(monitor))
        monitor.addObserver(replayer)
        var next = 20
        for _ in 0..<60 {
            let action = Int.random(in: 0..<3, using: &generator)
            let target = "p\(Int.random(in: 0..<next, using: &generator))"
            let age = Int.random(in: 0..<30, using: &generator)
            switch action {
            case 0:
                try insertPeople(stack, [("p\(next)", age)])
                next += 1
            case 1:
                try delete(stack, target)
            default:
                try edit(stack, target) { $0.age = age }
            }
            let expected = try stack.fetchAll(clauses).map(\.name)
            #expect(replayer.replayed == expected)
            #expect(names(monitor) == expected)
        }
        #expect(replayer.problems.isEmpty)
    }
}
