import Foundation
import CoreStore
import CoreStoreStorage

/// Commits that interleave: a store applies what a writer changed, property by property, on top
/// of what is stored (see `ChangeMerger`); the two sides of a relationship stay consistent.
enum MergingCases {
    static func c(_ name: String, _ body: @escaping @Sendable (ConformanceContext) throws -> Void) -> ConformanceCase {
        ConformanceCase(name, group: "merging", body: body)
    }

    static func api(_ name: String, _ body: @escaping @Sendable (ConformanceContext) throws -> Void) -> ConformanceCase {
        ConformanceCase(name, group: "merging", level: .api, body: body)
    }

    static let all: [ConformanceCase] = contractCases + apiCases

    // MARK: - Contract level

    /// Ann (age 31, score 1.5) with pet Rex; Bob and Cy without pets; pets Tom and Kit unowned.
    static func household(_ ctx: ConformanceContext) throws -> (any StorageInterface, [String: Record]) {
        let ann = Fixtures.id("Person", -1), rex = Fixtures.id("Pet", -4)
        let (store, world) = try ctx.seeded([
            Fixtures.person(-1, "Ann", age: 31, score: 1.5, pets: [rex]),
            Fixtures.person(-2, "Bob"), Fixtures.person(-3, "Cy"),
            Fixtures.pet(-4, "Rex", owner: ann), Fixtures.pet(-5, "Tom"), Fixtures.pet(-6, "Kit"),
        ])
        return (store, names(world.all))
    }

    static func names(_ records: [Record]) -> [String: Record] {
        var byName: [String: Record] = [:]
        for record in records { if case .string(let name) = record.attributes[0] { byName[name] = record } }
        return byName
    }

    /// The stored version of every record, by name.
    static func stored(_ ctx: ConformanceContext, _ store: any StorageInterface) throws -> [String: Record] {
        names(try ctx.fetch(store, FetchRequest(entity: "Person")) + ctx.fetch(store, FetchRequest(entity: "Pet")))
    }

    /// The names of the records `ids` name, sorted.
    static func nameList(_ ids: [RecordID], _ records: [String: Record]) -> [String] {
        ids.compactMap { id in records.first { $0.value.id.key == id.key }?.key }.sorted()
    }

    static func updating(_ record: Record, _ keys: Set<String>, base: Record? = nil, _ change: (inout Record) -> Void) -> RecordUpdate {
        var changed = record
        change(&changed)
        return RecordUpdate(record: changed, changedKeys: keys, base: base ?? record)
    }

    static let contractCases: [ConformanceCase] = [
        c("an update writes only its changed keys; the others keep the stored values") { ctx in
            let (store, seen) = try household(ctx)
            let ann = try ctx.unwrap(seen["Ann"], "Ann")
            _ = try store.write(ChangeSet(updates: [updating(ann, ["age"]) { $0.attributes[1] = .int(32) }]))
            // A writer that still sees age 31 changes the score only.
            let info = try store.write(ChangeSet(updates: [updating(ann, ["score"]) { $0.attributes[3] = .double(9) }]))
            let now = try ctx.unwrap(try stored(ctx, store)["Ann"], "Ann after both commits")
            try ctx.expectEqual(now.attributes[1], .int(32), "age kept from the first commit")
            try ctx.expectEqual(now.attributes[3], .double(9), "score written by the second commit")
            try ctx.expectEqual(info.changes.updates.map(\.changedKeys), [["score"]], "keys the second commit reports as changed")
            try ctx.expectEqual(info.changes.updates.first?.new.attributes[1], .int(32), "age in the record the second commit reports")
            try ctx.expectEqual(info.changes.updates.first?.old.attributes[3], .double(1.5), "score in the version the second commit replaced")
        },
        c("when two commits change the same key the later one wins") { ctx in
            let (store, seen) = try household(ctx)
            let ann = try ctx.unwrap(seen["Ann"], "Ann")
            _ = try store.write(ChangeSet(updates: [updating(ann, ["age"]) { $0.attributes[1] = .int(40) }]))
            _ = try store.write(ChangeSet(updates: [updating(ann, ["age"]) { $0.attributes[1] = .int(50) }]))
            try ctx.expectEqual(try stored(ctx, store)["Ann"]?.attributes[1], .int(50), "age after two commits of the same key")
        },
        c("an update that changes no key writes and reports nothing") { ctx in
            let (store, seen) = try household(ctx)
            let ann = try ctx.unwrap(seen["Ann"], "Ann")
            let info = try store.write(ChangeSet(updates: [updating(ann, []) { $0.attributes[1] = .int(99) }]))
            try ctx.expectEqual(info.changes.updates.count, 0, "updates reported for a commit that changes no key")
            try ctx.expectEqual(try stored(ctx, store)["Ann"]?.attributes[1], .int(31), "age after an update without changed keys")
        },
        c("to-many changes merge as the destinations added and removed") { ctx in
            let (store, seen) = try household(ctx)
            let ann = try ctx.unwrap(seen["Ann"], "Ann"), rex = try ctx.unwrap(seen["Rex"], "Rex")
            let tom = try ctx.unwrap(seen["Tom"], "Tom"), kit = try ctx.unwrap(seen["Kit"], "Kit")
            // Two writers started from Ann.pets == [Rex]: one adds Tom, the other adds Kit and removes Rex.
            _ = try store.write(ChangeSet(updates: [
                updating(ann, ["pets"]) { $0.relationships[0] = [rex.id, tom.id] },
                updating(tom, ["owner"]) { $0.relationships[0] = [ann.id] },
            ]))
            let info = try store.write(ChangeSet(updates: [
                updating(ann, ["pets"]) { $0.relationships[0] = [kit.id] },
                updating(kit, ["owner"]) { $0.relationships[0] = [ann.id] },
                updating(rex, ["owner"]) { $0.relationships[0] = [] },
            ]))
            let now = try stored(ctx, store)
            try ctx.expectEqual(nameList(now["Ann"]?.relationships[0] ?? [], now), ["Kit", "Tom"], "Ann's pets after both commits")
            for pet in ["Kit", "Tom"] {
                try ctx.expectEqual(now[pet]?.relationships[0].map(\.key), [ann.id.key], "owner of \(pet)")
            }
            try ctx.expectEqual(now["Rex"]?.relationships[0] ?? [], [], "owner of Rex, removed by the second commit")
            let reported = names(info.changes.updates.map(\.new))
            try ctx.expectEqual(nameList(reported["Ann"]?.relationships[0] ?? [], now), ["Kit", "Tom"], "Ann's pets as the second commit reports them")
        },
        c("bases are trusted only while the store's sequence is the change set's base sequence") { ctx in
            let (store, seen) = try household(ctx)
            let ann = try ctx.unwrap(seen["Ann"], "Ann"), rex = try ctx.unwrap(seen["Rex"], "Rex")
            let tom = try ctx.unwrap(seen["Tom"], "Tom"), kit = try ctx.unwrap(seen["Kit"], "Kit")
            // A commit that changes nothing tells the sequence the writer below starts from.
            let start = try store.write(ChangeSet()).sequence
            _ = try store.write(ChangeSet(updates: [
                updating(ann, ["pets"]) { $0.relationships[0] = [rex.id, tom.id] },
                updating(tom, ["owner"]) { $0.relationships[0] = [ann.id] },
            ]))
            // The writer read Ann at `start`; the store has moved on, so it must merge with Tom.
            var stale = ChangeSet(updates: [
                updating(ann, ["pets"]) { $0.relationships[0] = [rex.id, kit.id] },
                updating(kit, ["owner"]) { $0.relationships[0] = [ann.id] },
            ])
            stale.baseSequence = start
            let info = try store.write(stale)
            let now = try stored(ctx, store)
            try ctx.expectEqual(nameList(now["Ann"]?.relationships[0] ?? [], now), ["Kit", "Rex", "Tom"], "Ann's pets after a writer with an old base sequence")
            // A writer whose base sequence is current gets the same merge.
            var current = ChangeSet(updates: [updating(try ctx.unwrap(now["Ann"], "Ann"), ["score"]) { $0.attributes[3] = .double(7) }])
            current.baseSequence = info.sequence
            let last = try store.write(current)
            try ctx.expectEqual(last.changes.updates.map(\.changedKeys), [["score"]], "keys reported for a writer with the current base sequence")
            try ctx.expectEqual(try stored(ctx, store)["Ann"]?.attributes[3], .double(7), "Ann's score")
        },
        c("moving a destination that meanwhile moved elsewhere keeps both sides consistent") { ctx in
            let (store, seen) = try household(ctx)
            let ann = try ctx.unwrap(seen["Ann"], "Ann"), bob = try ctx.unwrap(seen["Bob"], "Bob")
            let cy = try ctx.unwrap(seen["Cy"], "Cy"), rex = try ctx.unwrap(seen["Rex"], "Rex")
            // First Rex moves to Bob; then a writer that still sees Rex with Ann moves it to Cy.
            for destination in [bob, cy] {
                _ = try store.write(ChangeSet(updates: [
                    updating(rex, ["owner"]) { $0.relationships[0] = [destination.id] },
                    updating(ann, ["pets"]) { $0.relationships[0] = [] },
                    updating(destination, ["pets"]) { $0.relationships[0] = [rex.id] },
                ]))
            }
            let now = try stored(ctx, store)
            try ctx.expectEqual(now["Rex"]?.relationships[0].map(\.key), [cy.id.key], "owner of Rex (the later commit wins)")
            try ctx.expectEqual(nameList(now["Cy"]?.relationships[0] ?? [], now), ["Rex"], "Cy's pets")
            try ctx.expectEqual(nameList(now["Bob"]?.relationships[0] ?? [], now), [], "Bob's pets (Rex left him)")
            try ctx.expectEqual(nameList(now["Ann"]?.relationships[0] ?? [], now), [], "Ann's pets")
        },
        c("deleting a record removes it from destinations the writer did not see") { ctx in
            let (store, seen) = try household(ctx)
            let ann = try ctx.unwrap(seen["Ann"], "Ann"), rex = try ctx.unwrap(seen["Rex"], "Rex"), tom = try ctx.unwrap(seen["Tom"], "Tom")
            _ = try store.write(ChangeSet(updates: [
                updating(ann, ["pets"]) { $0.relationships[0] = [rex.id, tom.id] },
                updating(tom, ["owner"]) { $0.relationships[0] = [ann.id] },
            ]))
            // A writer that saw Ann with Rex only deletes her and nullifies Rex.
            let info = try store.write(ChangeSet(updates: [updating(rex, ["owner"]) { $0.relationships[0] = [] }], deletes: [ann.id]))
            let now = try stored(ctx, store)
            try ctx.expect(now["Ann"] == nil, "Ann is deleted")
            for pet in ["Rex", "Tom"] {
                try ctx.expectEqual(now[pet]?.relationships[0] ?? [], [], "owner of \(pet) after its owner was deleted")
            }
            try ctx.expectEqual(Set(names(info.changes.updates.map(\.new)).keys), ["Rex", "Tom"], "records the delete's commit reports as updated")
            try ctx.expectEqual(nameList(info.changes.deletes.first?.relationships[0] ?? [], now), ["Rex", "Tom"], "pets of the deleted record as reported")
        },
        c("clearing a to-one that another commit pointed elsewhere keeps the newer destination") { ctx in
            let (store, seen) = try household(ctx)
            let ann = try ctx.unwrap(seen["Ann"], "Ann"), bob = try ctx.unwrap(seen["Bob"], "Bob"), rex = try ctx.unwrap(seen["Rex"], "Rex")
            _ = try store.write(ChangeSet(updates: [
                updating(rex, ["owner"]) { $0.relationships[0] = [bob.id] },
                updating(ann, ["pets"]) { $0.relationships[0] = [] },
                updating(bob, ["pets"]) { $0.relationships[0] = [rex.id] },
            ]))
            // A writer that still sees Rex with Ann lets him go (and renames him).
            _ = try store.write(ChangeSet(updates: [
                updating(rex, ["owner", "name"]) { $0.relationships[0] = []; $0.attributes[0] = .string("Rexy") },
                updating(ann, ["pets"]) { $0.relationships[0] = [] },
            ]))
            let now = try stored(ctx, store)
            try ctx.expectEqual(now["Rexy"]?.relationships[0].map(\.key), [bob.id.key], "owner of Rex after the stale writer cleared it")
            try ctx.expectEqual(nameList(now["Bob"]?.relationships[0] ?? [], now), ["Rexy"], "Bob's pets")
        },
        c("relating to a record deleted meanwhile fails and writes nothing") { ctx in
            let (store, seen) = try household(ctx)
            let bob = try ctx.unwrap(seen["Bob"], "Bob"), kit = try ctx.unwrap(seen["Kit"], "Kit")
            _ = try store.write(ChangeSet(deletes: [bob.id]))
            let before = try stored(ctx, store)
            _ = try ctx.expectError("relating Kit to the deleted Bob", matching: { if case .conflict = $0 { true } else { false } }) {
                _ = try store.write(ChangeSet(updates: [updating(kit, ["owner", "name"]) { $0.relationships[0] = [bob.id]; $0.attributes[0] = .string("Kat") }]))
            }
            try ctx.expectEqual(try stored(ctx, store), before, "records after the failed commit")
        },
        c("relating to a record of another entity fails, whatever else the change set names") { ctx in
            let (store, seen) = try household(ctx)
            let rex = try ctx.unwrap(seen["Rex"], "Rex"), kit = try ctx.unwrap(seen["Kit"], "Kit")
            let before = try stored(ctx, store)
            // Person#k where k is Rex's key names no record; Pet#k is Rex, who is not a Person.
            let noPerson = RecordID(entity: "Person", key: rex.id.key)
            let attempts: [(String, ChangeSet)] = [
                ("an insert whose owner is Person#\(rex.id.key)", ChangeSet(inserts: [Fixtures.pet(-1, "Neo", owner: noPerson)])),
                ("the same insert with an update of Rex", ChangeSet(
                    inserts: [Fixtures.pet(-1, "Neo", owner: noPerson)],
                    updates: [updating(rex, ["name"]) { $0.attributes[0] = .string("Rexy") }])),
                ("an update whose owner is Rex itself", ChangeSet(updates: [updating(kit, ["owner"]) { $0.relationships[0] = [rex.id] }])),
            ]
            for (what, changes) in attempts {
                _ = try ctx.expectError("\(what)", matching: { if case .conflict = $0 { true } else { false } }) {
                    _ = try store.write(changes)
                }
                try ctx.expectEqual(try stored(ctx, store), before, "records after the failed commit of \(what)")
            }
        },
        c("an insert that relates to stored records updates their inverse") { ctx in
            let (store, seen) = try household(ctx)
            let ann = try ctx.unwrap(seen["Ann"], "Ann")
            // The writer did not update Ann: the store keeps her side consistent itself.
            let info = try store.write(ChangeSet(inserts: [Fixtures.pet(-1, "Neo", owner: ann.id)]))
            let now = try stored(ctx, store)
            try ctx.expectEqual(nameList(now["Ann"]?.relationships[0] ?? [], now), ["Neo", "Rex"], "Ann's pets after inserting Neo")
            try ctx.expectEqual(info.changes.updates.map(\.changedKeys), [["pets"]], "keys reported for Ann")
            try ctx.expectEqual(info.changes.inserts.count, 1, "inserts reported")
        },
    ]

    // MARK: - API level

    /// A stack holding Ann (age 40, pet Rex) and Bob (age 20).
    static func stack(_ ctx: ConformanceContext) throws -> (DataStack, any StorageInterface) {
        let (stack, store) = try APICases.makeStack(ctx, APICases.schema())
        try stack.perform(synchronous: { t in
            let ann = t.create(Into<ConformancePerson>()), bob = t.create(Into<ConformancePerson>())
            (ann.name, ann.age, bob.name, bob.age) = ("Ann", 40, "Bob", 20)
            let rex = t.create(Into<ConformancePet>())
            rex.name = "Rex"
            rex.owner = ann
        })
        return (stack, store)
    }

    static func person(_ stack: DataStack, _ name: String) throws -> ConformancePerson? {
        try stack.fetchOne(From<ConformancePerson>().where(\.$name == name))
    }

    /// A person's age, nickname and pet names as the store itself holds them (read through the
    /// contract, so independent of the stack's objects; Person's only integer is the age, its
    /// strings are the name and the nickname, a pet's only string is its name).
    static func reread(_ ctx: ConformanceContext, _ store: any StorageInterface, _ name: String = "Ann") throws -> (Int, String?, [String]) {
        let (people, pets) = try store.read { reader in
            (try reader.fetch(FetchRequest(entity: "Person")).records, try reader.fetch(FetchRequest(entity: "Pet")).records)
        }
        func strings(_ record: Record) -> [String] {
            record.attributes.compactMap { if case .string(let s) = $0 { return s } else { return nil } }
        }
        let person = try ctx.unwrap(people.first { strings($0).first == name || strings($0).contains(name) }, "stored person \(name)")
        var age = 0
        for case .int(let value) in person.attributes { age = Int(value) }
        let nickname = strings(person).first { $0 != name }
        let petNames = person.relationships.flatMap { $0 }.compactMap { id in pets.first { $0.id.key == id.key }.flatMap { strings($0).first } }
        return (age, nickname, petNames.sorted())
    }

    static let apiCases: [ConformanceCase] = [
        api("an unsafe transaction's commit keeps a key another transaction committed meanwhile") { ctx in
            let (stack, store) = try stack(ctx)
            let unsafe = stack.beginUnsafe()
            let ann = try ctx.unwrap(unsafe.edit(try person(stack, "Ann")), "Ann in the unsafe transaction")
            ann.nickname = "Annie"
            try stack.perform(synchronous: { t in
                t.edit(try person(stack, "Ann"))?.age = 41
            })
            try unsafe.commitAndWait()
            try ctx.expectEqual(ann.age, 41, "age of the unsafe transaction's object after its commit")
            let read = try ctx.unwrap(try person(stack, "Ann"), "Ann")
            try ctx.expectEqual(read.age, 41, "age read from the stack")
            try ctx.expectEqual(read.nickname, "Annie", "nickname read from the stack")
            let (age, nickname, _) = try reread(ctx, store)
            try ctx.expectEqual(age, 41, "stored age")
            try ctx.expectEqual(nickname, "Annie", "stored nickname")
        },
        api("two unsafe transactions that change different keys both keep their change") { ctx in
            let (stack, store) = try stack(ctx)
            let first = stack.beginUnsafe(), second = stack.beginUnsafe()
            try ctx.unwrap(first.edit(try person(stack, "Bob")), "Bob").name = "Robert"
            try ctx.unwrap(second.edit(try person(stack, "Bob")), "Bob").age = 21
            try first.commitAndWait()
            try second.commitAndWait()
            let (age, _, _) = try reread(ctx, store, "Robert")
            try ctx.expectEqual(age, 21, "Robert's stored age")
            try ctx.expect(try person(stack, "Bob") == nil, "the stack still finds a person named Bob")
        },
        api("two unsafe transactions that change the same key: the later commit wins") { ctx in
            let (stack, store) = try stack(ctx)
            let first = stack.beginUnsafe(), second = stack.beginUnsafe()
            try ctx.unwrap(second.edit(try person(stack, "Ann")), "Ann").age = 60
            try ctx.unwrap(first.edit(try person(stack, "Ann")), "Ann").age = 50
            try second.commitAndWait()
            try first.commitAndWait()
            try ctx.expectEqual(try reread(ctx, store).0, 50, "stored age")
            try ctx.expectEqual(try person(stack, "Ann")?.age, 50, "age read from the stack")
        },
        api("pets added by two transactions are all kept on both sides") { ctx in
            let (stack, store) = try stack(ctx)
            let unsafe = stack.beginUnsafe()
            let fido = unsafe.create(Into<ConformancePet>())
            fido.name = "Fido"
            fido.owner = try ctx.unwrap(unsafe.edit(try person(stack, "Ann")), "Ann")
            try stack.perform(synchronous: { t in
                let tom = t.create(Into<ConformancePet>())
                tom.name = "Tom"
                tom.owner = t.edit(try person(stack, "Ann"))
            })
            try unsafe.commitAndWait()
            try ctx.expectEqual(try person(stack, "Ann")?.pets.map(\.name).sorted(), ["Fido", "Rex", "Tom"], "Ann's pets read from the stack")
            try ctx.expectEqual(try reread(ctx, store).2, ["Fido", "Rex", "Tom"], "Ann's stored pets")
            let pets = try stack.fetchAll(From<ConformancePet>())
            for pet in pets { try ctx.expectEqual(pet.owner?.name, "Ann", "owner of \(pet.name)") }
        },
        api("a pet removed by one transaction and one added by another: both changes kept") { ctx in
            let (stack, store) = try stack(ctx)
            let unsafe = stack.beginUnsafe()
            let rex = try ctx.unwrap(unsafe.fetchOne(From<ConformancePet>().where(\.$name == "Rex")), "Rex")
            rex.owner = nil
            try stack.perform(synchronous: { t in
                let tom = t.create(Into<ConformancePet>())
                tom.name = "Tom"
                tom.owner = t.edit(try person(stack, "Ann"))
            })
            try unsafe.commitAndWait()
            try ctx.expectEqual(try reread(ctx, store).2, ["Tom"], "Ann's stored pets")
            try ctx.expectEqual(try person(stack, "Ann")?.pets.map(\.name), ["Tom"], "Ann's pets read from the stack")
        },
        api("two commits that each stay within a to-many bound but together exceed it: the second fails") { ctx in
            let (stack, _) = try APICases.makeStack(ctx, APICases.teamsSchema())
            try APICases.populateTeams(stack)
            try stack.perform(synchronous: { t in
                let squad = t.create(Into<ConformanceSquad>())
                squad.name = "Alpha"
                squad.players = Set(try t.fetchAll(From<ConformanceMember>().where(\.$name == "Ann")))
            })
            func adding(_ name: String, _ t: UnsafeDataTransaction) throws {
                let squad = try ctx.unwrap(t.fetchOne(From<ConformanceSquad>()), "squad Alpha")
                squad.players.formUnion(try t.fetchAll(From<ConformanceMember>().where(\.$name == name)))
            }
            let first = stack.beginUnsafe(), second = stack.beginUnsafe()
            try adding("Bob", first)
            try adding("Cy", second)
            try first.commitAndWait()
            let error = try APICases.expectCoreStoreError(ctx, "the second commit, which makes three players", matching: { _ in true }) {
                try second.commitAndWait()
            }
            try ctx.expect("\(error)".contains("players"), "the error names the relationship: \(error)")
            try ctx.expectEqual(try stack.fetchOne(From<ConformanceSquad>())?.players.map(\.name).sorted(), ["Ann", "Bob"], "players after the failed commit")
        },
        api("deleting a team does not undo a member's move to another team committed meanwhile") { ctx in
            let (stack, _) = try APICases.makeStack(ctx, APICases.teamsSchema())
            try APICases.populateTeams(stack)
            let unsafe = stack.beginUnsafe()
            let red = try ctx.unwrap(APICases.team(unsafe, "Red"), "team Red")
            _ = red.members.map(\.name)
            unsafe.delete(red)
            try stack.perform(synchronous: { t in
                let ann = try ctx.unwrap(t.fetchOne(From<ConformanceMember>().where(\.$name == "Ann")), "Ann")
                ann.team = try APICases.team(t, "Blue")
            })
            try unsafe.commitAndWait()
            try ctx.expectEqual(try APICases.members(stack), ["Ann:Blue", "Bob:-", "Cy:Blue"], "members after deleting Red")
            try ctx.expectEqual(try APICases.team(stack, "Blue")?.members.map(\.name).sorted(), ["Ann", "Cy"], "members of Blue")
        },
        api("monitors see the merged record") { ctx in
            let (stack, _) = try stack(ctx)
            let monitor = try stack.monitorList(From<ConformancePerson>().orderBy(.ascending(\.$name)))
            let unsafe = stack.beginUnsafe()
            try ctx.unwrap(unsafe.edit(try person(stack, "Ann")), "Ann").nickname = "Annie"
            try stack.perform(synchronous: { t in t.edit(try person(stack, "Ann"))?.age = 41 })
            try unsafe.commitAndWait()
            let ann = try ctx.unwrap(monitor.objectsInAllSections().first { $0.name == "Ann" }, "Ann in the monitor")
            try ctx.expectEqual(ann.age, 41, "age of Ann in the list monitor")
            try ctx.expectEqual(ann.nickname, "Annie", "nickname of Ann in the list monitor")
        },
    ]
}
