import Foundation
import CoreStore
import CoreStoreStorage

extension ObservationCases {
    static let otherCases: [ConformanceCase] = [
        c("an object monitor reports exactly the changed keys, then the deletion") { ctx in
            let s = try stack(ctx, [("Ann", 30), ("Bob", 40)])
            let ann = try ctx.unwrap(try s.fetchOne(From<ConformancePerson>().where(\.$name == "Ann")), "Ann")
            let q = queue()
            let m = try s.monitorObject(ann, deliveryQueue: q)
            let r = ObservationObjectRecorder()
            m.addObserver(r)
            try s.perform(synchronous: { t in
                t.edit(ann)?.age = 31
                t.edit(ann)?.nickname = "A"
            })
            try s.perform(synchronous: { t in
                t.edit(ann)?.age = 31
                for bob in try t.fetchAll(From<ConformancePerson>().where(\.$name == "Bob")) { bob.age = 41 }
                t.create(Into<ConformancePet>()).name = "Rex"
            })
            try ctx.expectEqual(r.events, ["willUpdate Ann", "didUpdate Ann age,nickname"], "callbacks for one real change and one commit of equal values")
            try s.perform(synchronous: { t in
                t.create(Into<ConformancePet>()).owner = t.edit(ann)
            })
            try ctx.expectEqual(r.events.last, "didUpdate Ann pets", "a relationship change names the relationship")
            try s.perform(synchronous: { t in if let a = t.edit(ann) { t.delete(a) } })
            try ctx.expectEqual(r.events.last, "didDelete Ann/31", "the deletion, with the last values")
            try ctx.expect(m.isObjectDeleted && m.object == nil, "the monitor's object after the deletion")
        },
        c("a list publisher publishes once per commit that changes its list") { ctx in
            let s = try stack(ctx, [("Ann", 30), ("Bob", 40)])
            let clauses = From<ConformancePerson>().where(\.$age >= 30).orderBy(.ascending(\.$name))
            let publisher = try s.publishList(clauses, deliveryQueue: queue())
            let counter = ObservationCounter()
            publisher.addObserver(counter) { _ in counter.hit() }
            try insert(s, [("Cid", 35), ("Kid", 5)])
            try s.perform(synchronous: { t in t.create(Into<ConformancePet>()).name = "Rex" })
            try edit(s, "Ann") { $0.age = 30 }
            try edit(s, "Kid") { $0.age = 6 }
            try ctx.expectEqual(counter.count, 1, "callbacks for one changing and three non-changing commits")
            let ids = try s.fetchAll(clauses).compactMap { $0.cs_id() }
            try ctx.expectEqual(publisher.snapshot.itemIDs, ids, "snapshot items against a fetch")
            try ctx.expectEqual(publisher.snapshot.map { $0.snapshot?.$name }, ["Ann", "Bob", "Cid"], "names read through the snapshot")
        },
        c("an object publisher's snapshot follows edits and becomes nil on deletion") { ctx in
            let s = try stack(ctx, [("Ann", 30)])
            let ann = try ctx.unwrap(try s.fetchOne(From<ConformancePerson>()), "Ann")
            let publisher = s.publishObject(ann, deliveryQueue: queue())
            let counter = ObservationCounter()
            publisher.addObserver(counter) { _ in counter.hit() }
            let before = try ctx.unwrap(publisher.snapshot, "the first snapshot")
            try edit(s, "Ann") { $0.score = 2.5 }
            try edit(s, "Ann") { $0.score = 2.5 }
            let after = try ctx.unwrap(publisher.snapshot, "the snapshot after the edit")
            try ctx.expect(before.$score == 0 && after.$score == 2.5 && after.$name == "Ann" && before != after, "snapshot values: \(before.$score) → \(after.$score)")
            try s.perform(synchronous: { t in if let a = t.edit(ann) { t.delete(a) } })
            try ctx.expectEqual(counter.count, 2, "callbacks: one edit, one deletion")
            try ctx.expect(publisher.snapshot == nil, "the snapshot after the deletion")
        },
        c("a monitor over a reopened store shows the stored list and follows it", requires: .persistent) { ctx in
            let store = try APICases.populatedStore(ctx, APICases.schema()) { try insert($0, [("Ann", 30), ("Bob", 40)]) }
            let s = try APICases.reopenedStack(ctx, store, APICases.schema())
            let (m, r) = try sectioned(s)
            try ctx.expectEqual(names(m), [["Ann"], ["Bob"]], "the list after reopening")
            try expect(ctx, "an insert after reopening", m, r, ["willChange", "insert Cid [1,1]", "didChange"], shown: [["Ann"], ["Bob", "Cid"]]) {
                try insert(s, [("Cid", 40)])
            }
        },
        c("bad monitor requests throw CoreStoreError") { ctx in
            let s = try stack(ctx)
            try APICases.expectCoreStoreError(ctx, "a sectioned list ordered by another key first", matching: { _ in true }) {
                _ = try s.monitorSectionedList(From<ConformancePerson>().sectionBy(\.$age).orderBy(.ascending(\.$name)), deliveryQueue: queue())
            }
            try APICases.expectCoreStoreError(ctx, "an unknown key", matching: { _ in true }) {
                _ = try s.monitorList(From<ConformancePerson>().where(Where<ConformancePerson>("shoeSize > 3")), deliveryQueue: queue())
            }
        },
    ]
}

/// Counts publisher callbacks.
final class ObservationCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var _count = 0
    var count: Int { lock.withLock { _count } }
    func hit() { lock.withLock { _count += 1 } }
}
