import Foundation
import Testing
@testable import CoreStore

/// One callback, with identifiers instead of objects.
enum ListEvent: Equatable {
    case insert(ObjectID, IndexPath), delete(ObjectID, IndexPath), update(ObjectID, IndexPath), move(ObjectID, IndexPath, IndexPath)
    case insertSection(Int), deleteSection(Int)
}

final class EventRecorder: ListSectionObserver, @unchecked Sendable {
    typealias ListEntityType = Person
    var events: [ListEvent] = []
    var batches = 0
    func listMonitorDidChange(_ monitor: ListMonitor<Person>) { batches += 1 }
    func listMonitor(_ monitor: ListMonitor<Person>, didInsertObject object: Person, toIndexPath indexPath: IndexPath) { events.append(.insert(object.cs_id()!, indexPath)) }
    func listMonitor(_ monitor: ListMonitor<Person>, didDeleteObject object: Person, fromIndexPath indexPath: IndexPath) { events.append(.delete(object.cs_id()!, indexPath)) }
    func listMonitor(_ monitor: ListMonitor<Person>, didUpdateObject object: Person, atIndexPath indexPath: IndexPath) { events.append(.update(object.cs_id()!, indexPath)) }
    func listMonitor(_ monitor: ListMonitor<Person>, didMoveObject object: Person, fromIndexPath: IndexPath, toIndexPath: IndexPath) { events.append(.move(object.cs_id()!, fromIndexPath, toIndexPath)) }
    func listMonitor(_ monitor: ListMonitor<Person>, didInsertSection sectionInfo: ListMonitor<Person>.SectionInfo, toSectionIndex sectionIndex: Int) { events.append(.insertSection(sectionIndex)) }
    func listMonitor(_ monitor: ListMonitor<Person>, didDeleteSection sectionInfo: ListMonitor<Person>.SectionInfo, fromSectionIndex sectionIndex: Int) { events.append(.deleteSection(sectionIndex)) }
}

/// Applies one commit's callbacks to the old list the way a table view applies batch updates:
/// deletes and move sources by old index path, inserts and move targets by new index path.
func replay(_ old: [[ObjectID]], _ events: [ListEvent]) -> [[ObjectID]]? {
    var removed = Set<IndexPath>()
    var deletedSections = Set<Int>()
    var insertedSections: [Int] = []
    var placed: [(IndexPath, ObjectID)] = []
    for event in events {
        switch event {
        case .delete(_, let p): removed.insert(p)
        case .move(let id, let from, let to): removed.insert(from); placed.append((to, id))
        case .insert(let id, let p): placed.append((p, id))
        case .deleteSection(let s): deletedSections.insert(s)
        case .insertSection(let s): insertedSections.append(s)
        case .update: break
        }
    }
    var sections: [[ObjectID]] = []
    for (s, items) in old.enumerated() {
        let kept = items.enumerated().filter { !removed.contains(IndexPath(item: $0.offset, section: s)) }.map(\.element)
        if deletedSections.contains(s) {
            if !kept.isEmpty { return nil }
        } else {
            sections.append(kept)
        }
    }
    for s in insertedSections.sorted() {
        guard s <= sections.count else { return nil }
        sections.insert([], at: s)
    }
    for (p, id) in placed.sorted(by: { $0.0 < $1.0 }) {
        guard sections.indices.contains(p.section), p.item <= sections[p.section].count else { return nil }
        sections[p.section].insert(id, at: p.item)
    }
    return sections
}

@Suite("ListMonitor against refetches")
struct ListMonitorModelTests {
    /// Random commits of inserts, edits and deletes: after each, the monitor shows exactly what
    /// a fetch returns, and replaying its callbacks on the previous list gives the new one.
    @Test(arguments: StoreKind.allCases)
    func randomCommitsMatchAFetchAndReplayExactly(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let clauses = From<Person>().where(\.$age != 3).orderBy(.ascending(\.$age), .descending(\.$name))
        let monitor = try stack.monitorSectionedList(clauses.sectionBy(\.$age), deliveryQueue: makeDeliveryQueue())
        let recorder = EventRecorder()
        monitor.addObserver(recorder)
        var generator = SplitMix64(seed: 0xC0FFEE)
        var previous: [[ObjectID]] = []
        for step in 0..<150 {
            recorder.events = []
            let before = recorder.batches
            try stack.perform(synchronous: { t in
                let people = try t.fetchAll(From<Person>())
                func pick() -> Person? {
                    guard !people.isEmpty else { return nil }
                    let p = people[generator.below(people.count)]
                    return p.cs_isDeleted() ? nil : p
                }
                for _ in 0..<(1 + generator.below(4)) {
                    switch generator.below(6) {
                    case 0, 1:
                        let p = t.create(Into<Person>())
                        p.name = "p\(generator.below(30))"
                        p.age = generator.below(6)
                    case 2:
                        pick()?.age = generator.below(6)
                    case 3:
                        pick()?.name = "p\(generator.below(30))"
                    case 4:
                        pick()?.nickname = "n\(generator.below(3))"
                    case 5:
                        if let victim = pick() { t.delete(victim) }
                    default:
                        break
                    }
                }
            })
            let expected = Dictionary(grouping: try stack.fetchAll(clauses), by: \.age).sorted { $0.key < $1.key }.map { $0.value.compactMap { $0.cs_id() } }
            let shown = (0..<monitor.numberOfSections()).map { monitor.objects(in: $0).compactMap { $0.cs_id() } }
            #expect(shown == expected, "step \(step)")
            if recorder.batches == before {
                #expect(previous == expected, "step \(step): the list changed without callbacks")
            } else {
                #expect(replay(previous, recorder.events) == expected, "step \(step): \(recorder.events)")
                for case .update(let id, let p) in recorder.events {
                    #expect(expected[p.section][p.item] == id, "step \(step): update at the wrong index path")
                }
            }
            previous = expected
        }
    }

    /// Commits that each move one object (the path that shifts only the entries between its
    /// old and new places): forward, backward, to either end and to where it already was.
    @Test(arguments: StoreKind.allCases)
    func singleMovesMatchAFetchAndReplayExactly(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try stack.perform(synchronous: { t in
            for i in 0..<40 {
                let p = t.create(Into<Person>())
                p.name = "p\(i)"
                p.age = i % 10
            }
        })
        let clauses = From<Person>().orderBy(.ascending(\.$age), .descending(\.$name))
        let monitor = try stack.monitorList(clauses, deliveryQueue: makeDeliveryQueue())
        let recorder = EventRecorder()
        monitor.addObserver(recorder)
        var generator = SplitMix64(seed: 0x5EED)
        var previous = [try stack.fetchAll(clauses).compactMap { $0.cs_id() }]
        for step in 0..<120 {
            recorder.events = []
            try stack.perform(synchronous: { t in
                let people = try t.fetchAll(From<Person>())
                let p = people[generator.below(people.count)]
                // Ages -1 and 10 send it past either end; the same age may leave it in place.
                p.age = generator.below(12) - 1
            })
            let expected = [try stack.fetchAll(clauses).compactMap { $0.cs_id() }]
            let shown = [monitor.objectsInAllSections().compactMap { $0.cs_id() }]
            #expect(shown == expected, "step \(step)")
            #expect(replay(previous, recorder.events) == expected, "step \(step): \(recorder.events)")
            previous = expected
        }
    }
}
