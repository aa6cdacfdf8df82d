import Foundation
import Testing
import CoreStoreStorage
import CoreStoreConformance

/// The reference model's merge rules, pinned on hand-written interleavings: the scenarios of the
/// contract cases in `MergingCases`, on the same schema (`Fixtures.schema`), with the answers
/// worked out by hand. The differential runner trusts the model; these tests are why.
@Suite("Reference model: interleaved commits")
struct ReferenceModelMergingTests {
    // Person: name, age, email, score; pets (inverse Pet.owner), friends (ordered, no inverse).
    // Pet: name, tag, weight; owner (inverse Person.pets).
    static func person(_ key: Int64, _ name: String, age: Int64? = nil, score: Double? = nil, pets: [RecordID] = []) -> Record {
        Record(id: RecordID(entity: "Person", key: key),
               attributes: [.string(name), age.map(Value.int) ?? .null, .null, score.map(Value.double) ?? .null],
               relationships: [pets, []])
    }

    static func pet(_ key: Int64, _ name: String, owner: RecordID? = nil) -> Record {
        Record(id: RecordID(entity: "Pet", key: key), attributes: [.string(name), .null, .null], relationships: [owner.map { [$0] } ?? []])
    }

    /// Ann (age 31, score 1.5) with pet Rex; Bob and Cy without pets; pets Tom and Kit unowned.
    /// Keys: Ann 1, Bob 2, Cy 3, Rex 4, Tom 5, Kit 6.
    struct Household {
        var model = ReferenceModel(schema: Fixtures.schema)

        init() throws {
            let ann = RecordID(entity: "Person", key: -1), rex = RecordID(entity: "Pet", key: -4)
            _ = try model.apply(ChangeSet(inserts: [
                person(-1, "Ann", age: 31, score: 1.5, pets: [rex]), person(-2, "Bob"), person(-3, "Cy"),
                pet(-4, "Rex", owner: ann), pet(-5, "Tom"), pet(-6, "Kit"),
            ])).get()
        }

        /// The record named `name` as the model holds it now.
        func named(_ name: String) throws -> Record {
            try #require(model.records.values.first { $0.attributes[0] == .string(name) }, "\(name)")
        }

        /// The names of the records `ids` name, sorted.
        func names(_ ids: [RecordID]) -> [String] {
            ids.compactMap { id -> String? in
                guard case .string(let name)? = model.records[id.key]?.attributes[0] else { return nil }
                return name
            }.sorted()
        }

        /// Commits and checks that both sides of every relationship still agree.
        @discardableResult
        mutating func commit(_ changes: ChangeSet, sourceLocation: SourceLocation = #_sourceLocation) throws -> CommitInfo {
            let info = try model.apply(changes).get()
            #expect(model.relationshipInconsistencies() == [], sourceLocation: sourceLocation)
            return info
        }

        /// Fails unless the model rejects `changes` with `conflict` and changes nothing.
        mutating func expectRejected(_ changes: ChangeSet, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let before = model.records
            switch model.apply(changes) {
            case .success:
                Issue.record("\(what) was committed", sourceLocation: sourceLocation)
            case .failure(let rejection):
                #expect(rejection.accepts(.conflict(RecordID(entity: "", key: 0), reason: "")), "\(what): \(rejection.candidates)", sourceLocation: sourceLocation)
            }
            #expect(model.records == before, "records after the rejected \(what)", sourceLocation: sourceLocation)
        }
    }

    /// An update of `keys` of `record` (changed by `change`), made against `base` (the record itself by default).
    static func updating(_ record: Record, _ keys: Set<String>, base: Record? = nil, _ change: (inout Record) -> Void) -> RecordUpdate {
        var changed = record
        change(&changed)
        return RecordUpdate(record: changed, changedKeys: keys, base: base ?? record)
    }

    @Test("An update writes only its changed keys; the others keep the held values")
    func changedKeysOnly() throws {
        var h = try Household()
        let ann = try h.named("Ann")
        try h.commit(ChangeSet(updates: [Self.updating(ann, ["age"]) { $0.attributes[1] = .int(32) }]))
        // A writer that still sees age 31 changes the score only.
        let info = try h.commit(ChangeSet(updates: [Self.updating(ann, ["score"]) { $0.attributes[3] = .double(9) }]))
        let now = try h.named("Ann")
        #expect(now.attributes[1] == .int(32) && now.attributes[3] == .double(9))
        #expect(info.changes.updates.map(\.changedKeys) == [["score"]])
        #expect(info.changes.updates.first?.new.attributes[1] == .int(32))
        #expect(info.changes.updates.first?.old.attributes[3] == .double(1.5))
        #expect(h.model.counters.keptStoredValues == 1, "the stale age was not written back")
    }

    @Test("When two commits change the same key the later one wins")
    func laterWins() throws {
        var h = try Household()
        let ann = try h.named("Ann")
        try h.commit(ChangeSet(updates: [Self.updating(ann, ["age"]) { $0.attributes[1] = .int(40) }]))
        try h.commit(ChangeSet(updates: [Self.updating(ann, ["age"]) { $0.attributes[1] = .int(50) }]))
        #expect(try h.named("Ann").attributes[1] == .int(50))
    }

    @Test("An update that changes no key writes and reports nothing")
    func noChangedKeys() throws {
        var h = try Household()
        let ann = try h.named("Ann")
        let info = try h.commit(ChangeSet(updates: [Self.updating(ann, []) { $0.attributes[1] = .int(99) }]))
        #expect(info.changes.isEmpty)
        #expect(try h.named("Ann").attributes[1] == .int(31))
    }

    @Test("To-many changes merge as the destinations added and removed since the base")
    func toManyMerge() throws {
        var h = try Household()
        let (ann, rex, tom, kit) = (try h.named("Ann"), try h.named("Rex"), try h.named("Tom"), try h.named("Kit"))
        // Two writers started from Ann.pets == [Rex]: one adds Tom, the other adds Kit and removes Rex.
        try h.commit(ChangeSet(updates: [
            Self.updating(ann, ["pets"]) { $0.relationships[0] = [rex.id, tom.id] },
            Self.updating(tom, ["owner"]) { $0.relationships[0] = [ann.id] },
        ]))
        let info = try h.commit(ChangeSet(updates: [
            Self.updating(ann, ["pets"]) { $0.relationships[0] = [kit.id] },
            Self.updating(kit, ["owner"]) { $0.relationships[0] = [ann.id] },
            Self.updating(rex, ["owner"]) { $0.relationships[0] = [] },
        ]))
        // Held [Rex, Tom] minus Rex (removed since the base) plus Kit (added): Tom first, Kit appended.
        #expect(try h.named("Ann").relationships[0] == [tom.id, kit.id])
        #expect(try h.named("Kit").relationships[0] == [ann.id] && h.named("Tom").relationships[0] == [ann.id])
        #expect(try h.named("Rex").relationships[0] == [])
        #expect(h.model.counters.toManyMerges == 1)
        let reported = try #require(info.changes.updates.first { $0.new.id == ann.id })
        #expect(reported.old.relationships[0] == [rex.id, tom.id] && reported.new.relationships[0] == [tom.id, kit.id])
        #expect(Set(info.changes.updates.map(\.new.id)) == [ann.id, kit.id, rex.id])
    }

    @Test("With no base, or an unchanged stored list, the writer's list is written as it is")
    func toManyWithoutMerge() throws {
        var h = try Household()
        let (ann, rex, tom) = (try h.named("Ann"), try h.named("Rex"), try h.named("Tom"))
        try h.commit(ChangeSet(updates: [
            Self.updating(ann, ["pets"]) { $0.relationships[0] = [tom.id, rex.id] },
            Self.updating(tom, ["owner"]) { $0.relationships[0] = [ann.id] },
        ]))
        #expect(try h.named("Ann").relationships[0] == [tom.id, rex.id], "the stored list was the base: the writer's order")
        // A stale writer without a base: its list [Rex] replaces [Tom, Rex]; Tom loses his owner.
        var stale = ann
        stale.relationships[0] = [rex.id]
        stale.attributes[1] = .int(70)
        try h.commit(ChangeSet(updates: [RecordUpdate(record: stale, changedKeys: ["pets"])]))
        #expect(try h.named("Ann").relationships[0] == [rex.id])
        #expect(try h.named("Ann").attributes[1] == .int(31))
        #expect(try h.named("Tom").relationships[0] == [])
    }

    @Test("Moving a destination that meanwhile moved elsewhere keeps both sides consistent")
    func moveAfterMove() throws {
        var h = try Household()
        let (ann, bob, cy, rex) = (try h.named("Ann"), try h.named("Bob"), try h.named("Cy"), try h.named("Rex"))
        // First Rex moves to Bob; then a writer that still sees Rex with Ann moves it to Cy.
        for destination in [bob, cy] {
            try h.commit(ChangeSet(updates: [
                Self.updating(rex, ["owner"]) { $0.relationships[0] = [destination.id] },
                Self.updating(ann, ["pets"]) { $0.relationships[0] = [] },
                Self.updating(destination, ["pets"]) { $0.relationships[0] = [rex.id] },
            ]))
        }
        #expect(try h.named("Rex").relationships[0] == [cy.id])
        #expect(try h.names(h.named("Cy").relationships[0]) == ["Rex"])
        #expect(try h.named("Bob").relationships[0] == [] && h.named("Ann").relationships[0] == [])
    }

    @Test("Adding a destination through a to-many takes it from its previous owner")
    func previousOwner() throws {
        var h = try Household()
        let (ann, bob, rex) = (try h.named("Ann"), try h.named("Bob"), try h.named("Rex"))
        // Only Bob's side is written: the store sets Rex's owner and takes Rex from Ann.
        let info = try h.commit(ChangeSet(updates: [Self.updating(bob, ["pets"]) { $0.relationships[0] = [rex.id] }]))
        #expect(try h.named("Rex").relationships[0] == [bob.id])
        #expect(try h.named("Ann").relationships[0] == [])
        #expect(h.model.counters.previousOwnerFixes == 1)
        #expect(Set(info.changes.updates.map(\.new.id)) == [ann.id, bob.id, rex.id])
        #expect(info.changes.updates.first { $0.new.id == rex.id }?.changedKeys == ["owner"])
    }

    @Test("Deleting a record removes it from destinations the writer did not see")
    func deleteUnseen() throws {
        var h = try Household()
        let (ann, rex, tom) = (try h.named("Ann"), try h.named("Rex"), try h.named("Tom"))
        try h.commit(ChangeSet(updates: [
            Self.updating(ann, ["pets"]) { $0.relationships[0] = [rex.id, tom.id] },
            Self.updating(tom, ["owner"]) { $0.relationships[0] = [ann.id] },
        ]))
        // A writer that saw Ann with Rex only deletes her and nullifies Rex.
        let info = try h.commit(ChangeSet(updates: [Self.updating(rex, ["owner"]) { $0.relationships[0] = [] }], deletes: [ann.id]))
        #expect(h.model.records[ann.id.key] == nil)
        #expect(try h.named("Rex").relationships[0] == [] && h.named("Tom").relationships[0] == [])
        #expect(Set(info.changes.updates.map(\.new.id)) == [rex.id, tom.id])
        #expect(info.changes.deletes.map(\.relationships) == [[[rex.id, tom.id], []]], "the deleted record as it was stored")
        #expect(h.model.counters.deleteFixes == 1, "Tom, whom the writer did not see")
    }

    @Test("Relating to a record deleted meanwhile is rejected and changes nothing")
    func relateToDeleted() throws {
        var h = try Household()
        let (bob, kit) = (try h.named("Bob"), try h.named("Kit"))
        try h.commit(ChangeSet(deletes: [bob.id]))
        h.expectRejected(ChangeSet(updates: [Self.updating(kit, ["owner", "name"]) {
            $0.relationships[0] = [bob.id]
            $0.attributes[0] = .string("Kat")
        }]), "relating Kit to the deleted Bob")
        #expect(h.model.counters.danglingRejections == 1)
    }

    @Test("Relating to a record of another entity is rejected, whatever else the change set names")
    func relateToWrongEntity() throws {
        var h = try Household()
        let (rex, kit) = (try h.named("Rex"), try h.named("Kit"))
        let noPerson = RecordID(entity: "Person", key: rex.id.key)
        h.expectRejected(ChangeSet(inserts: [Self.pet(-1, "Neo", owner: noPerson)]), "an insert whose owner is Person#\(rex.id.key)")
        h.expectRejected(ChangeSet(inserts: [Self.pet(-1, "Neo", owner: noPerson)],
                                   updates: [Self.updating(rex, ["name"]) { $0.attributes[0] = .string("Rexy") }]),
                         "the same insert with an update of Rex")
        h.expectRejected(ChangeSet(updates: [Self.updating(kit, ["owner"]) { $0.relationships[0] = [rex.id] }]), "Kit owned by the pet Rex")
    }

    @Test("An insert that relates to stored records updates their inverse")
    func insertUpdatesInverse() throws {
        var h = try Household()
        let ann = try h.named("Ann")
        let info = try h.commit(ChangeSet(inserts: [Self.pet(-1, "Neo", owner: ann.id)]))
        #expect(try h.names(h.named("Ann").relationships[0]) == ["Neo", "Rex"])
        #expect(info.changes.updates.map(\.changedKeys) == [["pets"]])
        #expect(info.changes.inserts.map(\.id) == [RecordID(entity: "Pet", key: 7)])
    }
}
