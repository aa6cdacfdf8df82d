import Foundation
import CoreStoreStorage

/// Relationship destinations are stored, resolved from temporary identifiers, and kept in order.
enum RelationshipCases {
    static func c(_ name: String, _ body: @escaping @Sendable (ConformanceContext) throws -> Void) -> ConformanceCase {
        ConformanceCase(name, group: "relationships", body: body)
    }

    static let all: [ConformanceCase] = [
        c("temporary destinations become permanent") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            for record in world.all {
                let read = try ctx.records(store, [record.id]).first ?? nil
                for destinations in read?.relationships ?? [] {
                    try ctx.expect(destinations.allSatisfy { !$0.isTemporary }, "\(record.id) still points at a temporary identifier")
                }
            }
        },
        c("to-one and to-many round-trip") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            for (actual, expected) in zip(try ctx.records(store, world.all.map(\.id)), world.all) { try ctx.expectSameRecord(actual, expected) }
        },
        c("ordered to-many keeps its order") { ctx in
            var (store, world) = try ctx.seeded(Fixtures.world())
            let people = world.all.filter { $0.id.entity == "Person" }
            var ann = people[0]
            ann.relationships[1] = [people[5].id, people[2].id, people[8].id, people[1].id]
            try ctx.commit(store, ChangeSet(updates: [RecordUpdate(record: ann, changedKeys: ["friends"])]), into: &world)
            let read = try ctx.records(store, [ann.id]).first ?? nil
            try ctx.expectEqual(read?.relationships[1].map(\.key) ?? [], ann.relationships[1].map(\.key), "friends order")
        },
        c("an existing record can point at a new one") { ctx in
            var (store, world) = try ctx.seeded(Fixtures.world())
            guard var ghost = world.all.first(where: { $0.id.entity == "Pet" && $0.relationships[0].isEmpty }),
                  var owner = world.all.first(where: { $0.id.entity == "Person" }) else { try ctx.fail("fixture changed") }
            let neo = Fixtures.person(-1, "Neo", pets: [ghost.id])
            ghost.relationships[0] = [neo.id]
            owner.relationships[1].append(neo.id)
            try ctx.commit(store, ChangeSet(inserts: [neo], updates: [RecordUpdate(record: ghost, changedKeys: ["owner"]),
                                                                      RecordUpdate(record: owner, changedKeys: ["friends"])]), into: &world)
            for record in world.all { try ctx.expectSameRecord(try ctx.records(store, [record.id]).first ?? nil, record) }
        },
        c("clearing a to-many relationship") { ctx in
            var (store, world) = try ctx.seeded([Fixtures.person(-1, "Ann", friends: [Fixtures.id("Person", -2)]), Fixtures.person(-2, "Bob")])
            var ann = world.all[0]
            ann.relationships[1] = []
            try ctx.commit(store, ChangeSet(updates: [RecordUpdate(record: ann, changedKeys: ["friends"])]), into: &world)
            try ctx.expectSameRecord(try ctx.records(store, [ann.id]).first ?? nil, ann)
        },
        c("self reference in an ordered to-many") { ctx in
            let (store, world) = try ctx.seeded([Fixtures.person(-1, "Narcissus", friends: [Fixtures.id("Person", -1)])])
            try ctx.expectSameRecord(try ctx.records(store, [world.all[0].id]).first ?? nil, world.all[0])
        },
    ]
}
