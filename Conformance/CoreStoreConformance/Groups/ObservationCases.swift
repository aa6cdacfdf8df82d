import Foundation
import CoreStore
import CoreStoreStorage

/// Monitors and publishers behave the same over every store: exact callbacks, in order, and
/// nothing for commits that change nothing shown. Every case delivers on a serial queue of its
/// own (test runners do not service the main queue).
enum ObservationCases {
    static func c(_ name: String, requires: StorageCapabilities = [], _ body: @escaping @Sendable (ConformanceContext) throws -> Void) -> ConformanceCase {
        ConformanceCase(name, group: "observation", level: .api, requires: requires, body: body)
    }

    static func queue() -> DispatchQueue { DispatchQueue(label: "conformance.observation.\(UUID().uuidString)") }

    /// A stack over a new store with these people.
    static func stack(_ ctx: ConformanceContext, _ people: [(String, Int)] = []) throws -> DataStack {
        let (stack, _) = try APICases.makeStack(ctx, APICases.schema())
        if !people.isEmpty { try insert(stack, people) }
        return stack
    }

    static func insert(_ stack: DataStack, _ people: [(String, Int)]) throws {
        try stack.perform(synchronous: { t in
            for (name, age) in people {
                let p = t.create(Into<ConformancePerson>())
                p.name = name
                p.age = age
            }
        })
    }

    static func edit(_ stack: DataStack, _ name: String, _ change: @escaping (ConformancePerson) -> Void) throws {
        try stack.perform(synchronous: { t in
            for p in try t.fetchAll(From<ConformancePerson>().where(\.$name == name)) { change(p) }
        })
    }

    /// A monitor sectioned by age (then ordered by name) and its recorder.
    static func sectioned(_ stack: DataStack) throws -> (ListMonitor<ConformancePerson>, ObservationListRecorder) {
        let monitor = try stack.monitorSectionedList(
            From<ConformancePerson>().sectionBy(\.$age).orderBy(.ascending(\.$age), .ascending(\.$name)), deliveryQueue: queue()
        )
        let recorder = ObservationListRecorder()
        monitor.addObserver(recorder)
        return (monitor, recorder)
    }

    static func names(_ monitor: ListMonitor<ConformancePerson>) -> [[String]] {
        (0..<monitor.numberOfSections()).map { monitor.objects(in: $0).map(\.name) }
    }

    /// Runs `change` and checks the recorder saw exactly `expected` and the monitor shows `shown`.
    static func expect(
        _ ctx: ConformanceContext, _ what: String, _ monitor: ListMonitor<ConformancePerson>, _ recorder: ObservationListRecorder,
        _ expected: [String], shown: [[String]], _ change: () throws -> Void
    ) throws {
        recorder.reset()
        try change()
        try ctx.expectEqual(recorder.events, expected, "\(what): callbacks")
        try ctx.expectEqual(names(monitor), shown, "\(what): the list afterwards")
    }

    static let all: [ConformanceCase] = listCases + otherCases

    static let listCases: [ConformanceCase] = [
        c("inserting into an empty list reports the section, then the object") { ctx in
            let s = try stack(ctx)
            let (m, r) = try sectioned(s)
            try ctx.expectEqual(m.numberOfSections(), 0, "sections of an empty sectioned list")
            try expect(ctx, "first insert", m, r, ["willChange", "insertSection 30 0", "insert Ann [0,0]", "didChange"], shown: [["Ann"]]) {
                try insert(s, [("Ann", 30)])
            }
        },
        c("inserts into two sections, one of them new") { ctx in
            let s = try stack(ctx, [("Ann", 30), ("Cid", 50)])
            let (m, r) = try sectioned(s)
            try expect(ctx, "inserts", m, r, ["willChange", "insertSection 40 1", "insert Bob [0,1]", "insert Dan [1,0]", "insert Eve [2,1]", "didChange"],
                       shown: [["Ann", "Bob"], ["Dan"], ["Cid", "Eve"]]) {
                try insert(s, [("Bob", 30), ("Dan", 40), ("Eve", 50)])
            }
        },
        c("an edit that keeps the position is an update") { ctx in
            let s = try stack(ctx, [("Ann", 30), ("Bob", 30)])
            let (m, r) = try sectioned(s)
            try expect(ctx, "nickname", m, r, ["willChange", "update Bob [0,1]", "didChange"], shown: [["Ann", "Bob"]]) {
                try edit(s, "Bob") { $0.nickname = "B" }
            }
        },
        c("a move within a section, and a changed sort value that keeps the order") { ctx in
            let s = try stack(ctx, [("Ann", 1), ("Bob", 2), ("Cid", 3)])
            let m = try s.monitorList(From<ConformancePerson>().orderBy(.ascending(\.$age)), deliveryQueue: queue())
            let r = ObservationListRecorder()
            m.addObserver(r)
            try expect(ctx, "Ann to the end", m, r, ["willChange", "move Ann [0,0]->[0,2]", "didChange"], shown: [["Bob", "Cid", "Ann"]]) {
                try edit(s, "Ann") { $0.age = 10 }
            }
            try expect(ctx, "Cid 3 → 4", m, r, ["willChange", "update Cid [0,1]", "didChange"], shown: [["Bob", "Cid", "Ann"]]) {
                try edit(s, "Cid") { $0.age = 4 }
            }
        },
        c("a move across sections that both survive is one move") { ctx in
            let s = try stack(ctx, [("Ann", 30), ("Bob", 30), ("Cid", 40)])
            let (m, r) = try sectioned(s)
            try expect(ctx, "Ann to 40", m, r, ["willChange", "move Ann [0,0]->[1,0]", "didChange"], shown: [["Bob"], ["Ann", "Cid"]]) {
                try edit(s, "Ann") { $0.age = 40 }
            }
        },
        c("moving the only object of a section into a new one") { ctx in
            let s = try stack(ctx, [("Ann", 30), ("Bob", 40)])
            let (m, r) = try sectioned(s)
            try expect(ctx, "Ann to 50", m, r, ["willChange", "delete Ann [0,0]", "deleteSection 30 0", "insertSection 50 1", "insert Ann [1,0]", "didChange"],
                       shown: [["Bob"], ["Ann"]]) {
                try edit(s, "Ann") { $0.age = 50 }
            }
        },
        c("deleting a whole section reports its objects first") { ctx in
            let s = try stack(ctx, [("Ann", 30), ("Bob", 40), ("Cid", 40), ("Dan", 50)])
            let (m, r) = try sectioned(s)
            try expect(ctx, "delete the 40s", m, r, ["willChange", "delete Bob [1,0]", "delete Cid [1,1]", "deleteSection 40 1", "didChange"],
                       shown: [["Ann"], ["Dan"]]) {
                try s.perform(synchronous: { t in _ = try t.deleteAll(From<ConformancePerson>().where(\.$age == 40)) })
            }
        },
        c("a refetch replaces the list between willRefetch and didRefetch") { ctx in
            let s = try stack(ctx, [("Ann", 30), ("Bob", 40)])
            let q = queue()
            let m = try s.monitorSectionedList(From<ConformancePerson>().sectionBy(\.$age).orderBy(.ascending(\.$age)), deliveryQueue: q)
            let r = ObservationListRecorder()
            m.addObserver(r)
            let filter: Where<ConformancePerson> = \.$age > 35
            try m.refetch(filter, OrderBy<ConformancePerson>(.ascending(\.$age)))
            q.sync {}
            try ctx.expectEqual(r.events, ["willRefetch", "didRefetch"], "refetch callbacks")
            try ctx.expectEqual(names(m), [["Bob"]], "the refetched list")
            try expect(ctx, "inserts after the refetch", m, r, ["willChange", "insertSection 60 1", "insert Dan [1,0]", "didChange"], shown: [["Bob"], ["Dan"]]) {
                try insert(s, [("Cid", 20), ("Dan", 60)])
            }
        },
        c("commits that change nothing shown tell nothing; crossing the filter tells exactly that") { ctx in
            let s = try stack(ctx, [("Ann", 30), ("Bob", 40)])
            let m = try s.monitorList(From<ConformancePerson>().where(\.$age > 35).orderBy(.ascending(\.$name)), deliveryQueue: queue())
            let r = ObservationListRecorder()
            m.addObserver(r)
            try expect(ctx, "unrelated, equal, outside and empty commits", m, r, [], shown: [["Bob"]]) {
                try s.perform(synchronous: { t in t.create(Into<ConformancePet>()).name = "Rex" })
                try edit(s, "Bob") { $0.age = 40 }
                try edit(s, "Ann") { $0.age = 31 }
                try s.perform(synchronous: { _ in })
            }
            try expect(ctx, "Ann in, Bob out", m, r, ["willChange", "insert Ann [0,0]", "didChange", "willChange", "delete Bob [0,1]", "didChange"], shown: [["Ann"]]) {
                try edit(s, "Ann") { $0.age = 36 }
                try edit(s, "Bob") { $0.age = 20 }
            }
        },
        c("a filter through a relationship follows edits of the related objects") { ctx in
            let s = try stack(ctx)
            try s.perform(synchronous: { t in
                let ann = t.create(Into<ConformancePerson>())
                ann.name = "Ann"
                let pet = t.create(Into<ConformancePet>())
                pet.name = "Fido"
                pet.owner = ann
            })
            let m = try s.monitorList(From<ConformancePerson>().where((\ConformancePerson.$pets ~ \.$name).any() == "Rex").orderBy(.ascending(\.$name)), deliveryQueue: queue())
            let r = ObservationListRecorder()
            m.addObserver(r)
            try expect(ctx, "renaming the pet", m, r, ["willChange", "insert Ann [0,0]", "didChange"], shown: [["Ann"]]) {
                try s.perform(synchronous: { t in for pet in try t.fetchAll(From<ConformancePet>()) { pet.name = "Rex" } })
            }
            try expect(ctx, "deleting the pet", m, r, ["willChange", "delete Ann [0,0]", "didChange"], shown: [[]]) {
                try s.perform(synchronous: { t in _ = try t.deleteAll(From<ConformancePet>()) })
            }
        },
        c("random commits: the list equals a fetch and the callbacks replay exactly") { ctx in
            let s = try stack(ctx)
            let clauses = From<ConformancePerson>().where(\.$age != 3).orderBy(.ascending(\.$age), .descending(\.$name))
            let m = try s.monitorSectionedList(clauses.sectionBy(\.$age), deliveryQueue: queue())
            let r = ObservationListRecorder()
            m.addObserver(r)
            var random = SplitMix64(seed: 0x5EED)
            var previous: [[ObjectID]] = []
            for step in 0..<60 {
                r.reset()
                let batchesBefore = r.batches
                try s.perform(synchronous: { t in
                    let people = try t.fetchAll(From<ConformancePerson>())
                    func pick() -> ConformancePerson? {
                        guard !people.isEmpty else { return nil }
                        let p = people[random.below(people.count)]
                        return p.cs_isDeleted() ? nil : p
                    }
                    for _ in 0...random.below(3) {
                        switch random.below(6) {
                        case 0, 1:
                            let p = t.create(Into<ConformancePerson>())
                            p.name = "p\(random.below(20))"
                            p.age = random.below(6)
                        case 2: pick()?.age = random.below(6)
                        case 3: pick()?.name = "p\(random.below(20))"
                        case 4: pick()?.nickname = "n\(random.below(3))"
                        default: if let p = pick() { t.delete(p) }
                        }
                    }
                })
                let expected = Dictionary(grouping: try s.fetchAll(clauses), by: \.age).sorted { $0.key < $1.key }.map { $0.value.compactMap { $0.cs_id() } }
                let shown = (0..<m.numberOfSections()).map { m.objects(in: $0).compactMap { $0.cs_id() } }
                try ctx.expectEqual(shown, expected, "step \(step): the monitored list")
                if r.batches == batchesBefore {
                    try ctx.expectEqual(previous, expected, "step \(step): the list changed without callbacks")
                } else {
                    try ctx.expect(r.replay(on: previous) == expected, "step \(step): replaying \(r.events) on the previous list does not give the new one")
                }
                previous = expected
            }
        },
    ]
}
