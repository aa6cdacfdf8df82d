import Foundation
import Testing
@testable import CoreStore

final class Owner: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("guarded", inverse: \Vault.$guardian, deleteRule: .deny) var guarded: Vault?
    @Field.Relationship("items", maxCount: 3, inverse: \Item.$owner, deleteRule: .cascade) var items: [Item]
}

final class Vault: CoreStoreObject {
    @Field.Stored("label") var label: String = ""
    @Field.Relationship("guardian") var guardian: Owner?
}

final class Item: CoreStoreObject {
    @Field.Stored("title") var title: String = ""
    @Field.Relationship("owner") var owner: Owner?
    @Field.Relationship("tags", inverse: \Tag.$items) var tags: Set<Tag>
}

final class Tag: CoreStoreObject {
    @Field.Stored("word") var word: String = ""
    @Field.Relationship("items", minCount: 0) var items: Set<Item>
}

func makeRelationshipStack(_ kind: StoreKind) throws -> DataStack {
    let stack = DataStack(CoreStoreSchema(
        modelVersion: "R1",
        entities: [Entity<Owner>("Owner"), Entity<Vault>("Vault"), Entity<Item>("Item"), Entity<Tag>("Tag")],
        versionLock: nil
    ))
    try stack.addStorageAndWait(kind.makeStore())
    return stack
}

@Suite("Relationships and delete rules")
struct RelationshipTests {
    @Test(arguments: StoreKind.allCases)
    func toOneSetsTheInverseToMany(_ kind: StoreKind) throws {
        let stack = try makeRelationshipStack(kind)
        try stack.perform(synchronous: { transaction in
            let owner = transaction.create(Into<Owner>())
            let item = transaction.create(Into<Item>())
            item.owner = owner
            #expect(owner.items == [item])
        })
        let owner = try #require(try stack.fetchOne(From<Owner>()))
        #expect(owner.items.count == 1)
        #expect(owner.items.first?.owner === owner)
    }

    @Test(arguments: StoreKind.allCases)
    func orderedToManyKeepsOrderAndMovesItemsBetweenOwners(_ kind: StoreKind) throws {
        let stack = try makeRelationshipStack(kind)
        try stack.perform(synchronous: { transaction in
            let a = transaction.create(Into<Owner>())
            a.name = "A"
            let b = transaction.create(Into<Owner>())
            b.name = "B"
            let items = (1...3).map { i -> Item in
                let item = transaction.create(Into<Item>())
                item.title = "i\(i)"
                return item
            }
            a.items = [items[2], items[0], items[1]]
            #expect(a.items.map(\.title) == ["i3", "i1", "i2"])
            items[0].owner = b
            #expect(a.items.map(\.title) == ["i3", "i2"])
            #expect(b.items.map(\.title) == ["i1"])
        })
        let a = try #require(try stack.fetchOne(From<Owner>().where(\.$name == "A")))
        #expect(a.items.map(\.title) == ["i3", "i2"])
        let b = try #require(try stack.fetchOne(From<Owner>().where(\.$name == "B")))
        #expect(b.items.map(\.title) == ["i1"])
    }

    @Test(arguments: StoreKind.allCases)
    func oneToOneInverseReleasesThePreviousPartner(_ kind: StoreKind) throws {
        let stack = try makeRelationshipStack(kind)
        try stack.perform(synchronous: { transaction in
            let x = transaction.create(Into<Owner>())
            let z = transaction.create(Into<Owner>())
            let vault = transaction.create(Into<Vault>())
            x.guarded = vault
            #expect(vault.guardian === x)
            z.guarded = vault
            #expect(vault.guardian === z)
            #expect(x.guarded == nil)
            vault.guardian = x
            #expect(x.guarded === vault)
            #expect(z.guarded == nil)
        })
    }

    @Test(arguments: StoreKind.allCases)
    func manyToManyIsKeptInSyncOnBothSides(_ kind: StoreKind) throws {
        let stack = try makeRelationshipStack(kind)
        try stack.perform(synchronous: { transaction in
            let item1 = transaction.create(Into<Item>())
            let item2 = transaction.create(Into<Item>())
            let tag = transaction.create(Into<Tag>())
            tag.word = "red"
            item1.tags = [tag]
            item2.tags.insert(tag)
            #expect(tag.items == [item1, item2])
            tag.items = [item2]
            #expect(item1.tags.isEmpty)
        })
        let tag = try #require(try stack.fetchOne(From<Tag>()))
        #expect(tag.items.count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func cascadeDeletesDestinations(_ kind: StoreKind) throws {
        let stack = try makeRelationshipStack(kind)
        try stack.perform(synchronous: { transaction in
            let owner = transaction.create(Into<Owner>())
            owner.items = [transaction.create(Into<Item>()), transaction.create(Into<Item>())]
        })
        try stack.perform(synchronous: { transaction in
            _ = try transaction.deleteAll(From<Owner>())
        })
        #expect(try stack.fetchCount(From<Item>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func nullifyRemovesTheDeletedObjectFromInverses(_ kind: StoreKind) throws {
        let stack = try makeRelationshipStack(kind)
        try stack.perform(synchronous: { transaction in
            let item = transaction.create(Into<Item>())
            let tag = transaction.create(Into<Tag>())
            item.tags = [tag]
        })
        let tag = try #require(try stack.fetchOne(From<Tag>()))
        #expect(tag.items.count == 1)
        try stack.perform(synchronous: { transaction in _ = try transaction.deleteAll(From<Item>()) })
        #expect(tag.items.isEmpty, "the stack's object sees the nullified inverse")
        #expect(try stack.fetchCount(From<Tag>()) == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func denyBlocksTheCommitWhileTheRelationshipIsNotEmpty(_ kind: StoreKind) throws {
        let stack = try makeRelationshipStack(kind)
        try stack.perform(synchronous: { transaction in
            let owner = transaction.create(Into<Owner>())
            owner.guarded = transaction.create(Into<Vault>())
        })
        #expect {
            try stack.perform(synchronous: { transaction in _ = try transaction.deleteAll(From<Owner>()) })
        } throws: { error in
            guard case CoreStoreError.deleteDenied(let entity, let relationship) = error else { return false }
            return entity == "Owner" && relationship == "guarded"
        }
        #expect(try stack.fetchCount(From<Owner>()) == 1)
        try stack.perform(synchronous: { transaction in
            _ = try transaction.deleteAll(From<Vault>())
            _ = try transaction.deleteAll(From<Owner>())
        })
        #expect(try stack.fetchCount(From<Owner>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func maxCountIsEnforcedAtCommit(_ kind: StoreKind) throws {
        let stack = try makeRelationshipStack(kind)
        #expect {
            try stack.perform(synchronous: { transaction in
                let owner = transaction.create(Into<Owner>())
                owner.items = (0..<4).map { _ in transaction.create(Into<Item>()) }
            })
        } throws: { error in
            guard case CoreStoreError.relationshipCountViolation(_, let relationship, let count, _, let maximum) = error else { return false }
            return relationship == "items" && count == 4 && maximum == 3
        }
        #expect(try stack.fetchCount(From<Item>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func relatingObjectsFromDifferentContextsFailsTheCommit(_ kind: StoreKind) throws {
        let stack = try makeRelationshipStack(kind)
        try stack.perform(synchronous: { $0.create(Into<Owner>()).name = "Outside" })
        let outside = try #require(try stack.fetchOne(From<Owner>()))
        #expect {
            try stack.perform(synchronous: { transaction in
                let item = transaction.create(Into<Item>())
                item.owner = outside
            })
        } throws: { error in
            guard case CoreStoreError.invalidObject(let message) = error else { return false }
            return message.contains("another context")
        }
        #expect(try stack.fetchCount(From<Item>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func relatingObjectsOfAnotherStackFailsTheCommit(_ kind: StoreKind) throws {
        let stack = try makeRelationshipStack(kind)
        let other = try makeRelationshipStack(kind)
        let foreign = try other.perform(synchronous: { transaction -> Owner in transaction.create(Into<Owner>()) })
        #expect(throws: CoreStoreError.self) {
            try stack.perform(synchronous: { transaction in
                transaction.create(Into<Item>()).owner = foreign
            })
        }
    }

    @Test(arguments: StoreKind.allCases)
    func relationshipsCanBeUsedInPredicatesAgainstNil(_ kind: StoreKind) throws {
        let stack = try makeRelationshipStack(kind)
        try stack.perform(synchronous: { transaction in
            let owner = transaction.create(Into<Owner>())
            let owned = transaction.create(Into<Item>())
            owned.title = "owned"
            owned.owner = owner
            transaction.create(Into<Item>()).title = "loose"
        })
        let loose = try stack.fetchAll(From<Item>(), Where<Item>(.comparison(.init("owner", .equal, .null))))
        #expect(loose.map(\.title) == ["loose"])
    }

    @Test(arguments: StoreKind.allCases)
    func aReferenceToAnObjectDeletedBeforeTheCommitFailsTheCommit(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Bob", 40)])
        // `friends` has no inverse: deleting a friend does not take it out of the list.
        for refersFromCommitted in [false, true] {
            #expect(throws: CoreStoreError.self, "refers from a committed object: \(refersFromCommitted)") {
                try stack.perform(synchronous: { transaction in
                    let passing = transaction.create(Into<Person>())
                    passing.name = "Passing"
                    let holder: Person
                    if refersFromCommitted {
                        holder = try #require(try transaction.fetchOne(From<Person>().where(\.$name == "Bob")))
                    } else {
                        holder = transaction.create(Into<Person>())
                    }
                    holder.friends = [passing]
                    transaction.delete(passing)
                })
            }
        }
        do {
            try stack.perform(synchronous: { transaction in
                let passing = transaction.create(Into<Person>())
                let ann = transaction.create(Into<Person>())
                ann.name = "Ann"
                ann.friends = [passing]
                transaction.delete(passing)
            })
        } catch {
            #expect("\(error)".contains("'Person.friends' still refers to a 'Person' object that was deleted before the commit"), "\(error)")
        }
        #expect(try stack.fetchAll(From<Person>()).map(\.name) == ["Bob"], "nothing of the failed commits was stored")
        // Taken out of the relationship first, the object can be deleted.
        try stack.perform(synchronous: { transaction in
            let passing = transaction.create(Into<Person>())
            let ann = transaction.create(Into<Person>())
            ann.name = "Ann"
            ann.friends = [passing]
            ann.friends = []
            transaction.delete(passing)
        })
        #expect(try stack.fetchAll(From<Person>().orderBy(.ascending(\.$name))).map(\.name) == ["Ann", "Bob"])
    }
}
