import Foundation
import CoreStore
import CoreStoreStorage

/// A person of the API-level cases.
final class ConformancePerson: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("nickname") var nickname: String?
    @Field.Stored("score") var score: Double = 0
    @Field.Relationship("pets", inverse: \ConformancePet.$owner, deleteRule: .cascade) var pets: Set<ConformancePet>
}

/// A pet of the API-level cases.
final class ConformancePet: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("owner") var owner: ConformancePerson?
}

/// The same behaviours through `DataStack` and `CoreStoreObject` models.
enum APICases {
    static func schema() -> CoreStoreSchema {
        CoreStoreSchema(modelVersion: "V1", entities: [
            Entity<ConformancePerson>("Person"),
            Entity<ConformancePet>("Pet"),
        ])
    }

    static func c(_ name: String, requires: StorageCapabilities = [], _ body: @escaping @Sendable (ConformanceContext) throws -> Void) -> ConformanceCase {
        ConformanceCase(name, group: "api", level: .api, requires: requires, body: body)
    }

    /// A stack over a new store of the factory for `configuration`.
    static func makeStack(_ ctx: ConformanceContext, _ schema: CoreStoreSchema, configuration: String? = nil) throws -> (DataStack, any StorageInterface) {
        let stack = DataStack(schema)
        let store = try ctx.newStore(configuration: configuration)
        try stack.addStorageAndWait(store)
        return (stack, store)
    }

    /// A new store filled by `populate` through a stack that is gone (and has closed the store)
    /// when this returns.
    static func populatedStore(_ ctx: ConformanceContext, _ schema: CoreStoreSchema, _ populate: (DataStack) throws -> Void) throws -> any StorageInterface {
        let (stack, store) = try makeStack(ctx, schema)
        try populate(stack)
        return store
    }

    /// A new stack over a new instance of the data of `store` (closed first, its stack gone).
    static func reopenedStack(_ ctx: ConformanceContext, _ store: any StorageInterface, _ schema: CoreStoreSchema) throws -> DataStack {
        let instance = try ctx.instance(over: store)
        let stack = DataStack(schema)
        try stack.addStorageAndWait(instance)
        return stack
    }

    /// Runs `body`, which must throw a ``CoreStoreError`` accepted by `matching`; returns it.
    @discardableResult
    static func expectCoreStoreError(_ ctx: ConformanceContext, _ what: String, matching: (CoreStoreError) -> Bool, _ body: () throws -> Void) throws -> CoreStoreError {
        do {
            try body()
        } catch let error as CoreStoreError {
            if matching(error) { return error }
            try ctx.fail("\(what): threw the wrong error: \(error.debugDescription)")
        } catch let failure as ConformanceFailure {
            throw failure
        } catch {
            try ctx.fail("\(what): threw \(error), which is not a CoreStoreError")
        }
        try ctx.fail("\(what): did not throw")
    }

    /// A stack over a new store of the factory, with three people and two pets.
    static func seededStack(_ ctx: ConformanceContext) throws -> (DataStack, any StorageInterface) {
        let stack = DataStack(schema())
        let store = try ctx.newStore()
        _ = try stack.addStorageAndWait(store)
        try stack.perform(synchronous: { t in
            for (name, age, nickname) in [("Ann", 31, "A"), ("bob", 25, nil), ("Zoë", 40, "Z")] as [(String, Int, String?)] {
                let p = t.create(Into<ConformancePerson>())
                p.name = name
                p.age = age
                p.nickname = nickname
                p.score = Double(age) / 2
                if name == "Ann" {
                    for petName in ["Rex", "Fido"] {
                        let pet = t.create(Into<ConformancePet>())
                        pet.name = petName
                        pet.owner = p
                    }
                }
            }
        })
        return (stack, store)
    }

    static let all: [ConformanceCase] = basicCases + valueCases + transactionCases + relationshipCases + configurationCases + badInputCases
        + recordedSchemaCases

    static let basicCases: [ConformanceCase] = [
        c("objects saved by a transaction are fetched back") { ctx in
            let (stack, _) = try seededStack(ctx)
            try ctx.expectEqual(try stack.fetchAll(From<ConformancePerson>().orderBy(.ascending(\.$name))).map(\.name), ["Ann", "Zoë", "bob"], "names in UTF-8 order")
        },
        c("a typed predicate") { ctx in
            let (stack, _) = try seededStack(ctx)
            try ctx.expectEqual(try stack.fetchCount(From<ConformancePerson>().where(\.$age > 30)), 2, "people older than 30")
        },
        c("a relationship predicate") { ctx in
            let (stack, _) = try seededStack(ctx)
            let names = try stack.fetchAll(From<ConformancePerson>().where((\.$pets ~ \.$name).any() == "Rex")).map(\.name)
            try ctx.expectEqual(names, ["Ann"], "owners of Rex")
        },
        c("a format predicate with [cd]") { ctx in
            let (stack, _) = try seededStack(ctx)
            try ctx.expectEqual(try stack.fetchCount(From<ConformancePerson>(), Where<ConformancePerson>("name ==[cd] %@", "zoe")), 1, "people named zoe[cd]")
        },
        c("nil optional fields") { ctx in
            let (stack, _) = try seededStack(ctx)
            try ctx.expectEqual(try stack.fetchAll(From<ConformancePerson>().where(\.$nickname == nil)).map(\.name), ["bob"], "people without nickname")
        },
        c("limit and offset") { ctx in
            let (stack, _) = try seededStack(ctx)
            let page = try stack.fetchAll(From<ConformancePerson>().orderBy(.descending(\.$age)).tweak { $0.fetchLimit = 1; $0.fetchOffset = 1 })
            try ctx.expectEqual(page.map(\.name), ["Ann"], "second oldest")
        },
        c("an aggregate query") { ctx in
            let (stack, _) = try seededStack(ctx)
            try ctx.expectEqual(try stack.queryValue(From<ConformancePerson>().select(Int.self, .maximum(\.$age))), 40, "maximum age")
        },
        c("an edit is saved") { ctx in
            let (stack, _) = try seededStack(ctx)
            try stack.perform(synchronous: { t in
                for p in try t.fetchAll(From<ConformancePerson>().where(\.$name == "bob")) { p.age = 26 }
            })
            try ctx.expectEqual(try stack.fetchAll(From<ConformancePerson>().where(\.$name == "bob")).map(\.age), [26], "bob's age after the edit")
        },
        c("a cascade delete") { ctx in
            let (stack, _) = try seededStack(ctx)
            try stack.perform(synchronous: { t in
                _ = try t.deleteAll(From<ConformancePerson>().where(\.$name == "Ann"))
            })
            try ctx.expectEqual(try stack.fetchCount(From<ConformancePet>()), 0, "pets after deleting their owner")
            try ctx.expectEqual(try stack.fetchCount(From<ConformancePerson>()), 2, "people left")
        },
        c("objects survive reopening the store", requires: .persistent) { ctx in
            let (_, store) = try seededStack(ctx)
            store.close()
            let reopened = try ctx.factory.reopen(store)
            let stack = DataStack(schema())
            _ = try stack.addStorageAndWait(reopened)
            try ctx.expectEqual(try stack.fetchAll(From<ConformancePerson>().orderBy(.ascending(\.$age))).map(\.name), ["bob", "Ann", "Zoë"], "people after reopen")
            try ctx.expectEqual(try stack.fetchCount(From<ConformancePet>()), 2, "pets after reopen")
            reopened.close()
        },
    ]
}
