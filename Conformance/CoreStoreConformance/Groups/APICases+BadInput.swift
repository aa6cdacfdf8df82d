import Foundation
import CoreStore
import CoreStoreStorage

extension APICases {
    static func isInvalidPredicate(containing text: String) -> (CoreStoreError) -> Bool {
        return { error in
            if case .invalidPredicate(let message) = error { return message.contains(text) }
            return false
        }
    }

    /// The people of ``seededStack(_:)``, as the stack and as the store answer them.
    static func expectPeopleUnchanged(_ ctx: ConformanceContext, _ stack: DataStack, _ store: any StorageInterface) throws {
        try ctx.expectEqual(try stack.fetchAll(From<ConformancePerson>().orderBy(.ascending(\.$name))).map { "\($0.name):\($0.age)" },
                            ["Ann:31", "Zoë:40", "bob:25"], "people fetched from the DataStack")
        try ctx.expectEqual(try storedStrings(store, "Person"), ["A", "Ann", "Z", "Zoë", "bob"], "names and nicknames held by the store")
        try ctx.expectEqual(try stack.fetchCount(From<ConformancePet>()), 2, "pets fetched from the DataStack")
    }

    /// A bad `Where` must make a fetch, a count and a delete throw `invalidPredicate` (with
    /// `message` in its text) and leave the store unchanged.
    static func badWhere(_ name: String, message: String, _ makeWhere: @escaping @Sendable () -> Where<ConformancePerson>) -> ConformanceCase {
        c(name) { ctx in
            let (stack, store) = try seededStack(ctx)
            let matching = isInvalidPredicate(containing: message)
            try expectCoreStoreError(ctx, "fetchAll with \(name)", matching: matching) { _ = try stack.fetchAll(From<ConformancePerson>().where(makeWhere())) }
            try expectCoreStoreError(ctx, "fetchCount with \(name)", matching: matching) { _ = try stack.fetchCount(From<ConformancePerson>().where(makeWhere())) }
            try expectCoreStoreError(ctx, "a transaction deleting with \(name)", matching: matching) {
                try stack.perform(synchronous: { t in
                    for person in try t.fetchAll(From<ConformancePerson>()) { person.age += 1 }
                    _ = try t.deleteAll(From<ConformancePerson>().where(makeWhere()))
                })
            }
            try expectPeopleUnchanged(ctx, stack, store)
        }
    }

    static let badInputCases: [ConformanceCase] = [
        badWhere("a format predicate with a string for %d", message: "must be an integer") { Where<ConformancePerson>("age > %d", "thirty") },
        badWhere("a format predicate with an unknown key", message: "nmae") { Where<ConformancePerson>("nmae == %@", "Ann") },
        badWhere("a format predicate with an unknown key in a path", message: "nmae") { Where<ConformancePerson>("ANY pets.nmae == %@", "Rex") },
        badWhere("a malformed format predicate", message: "position") { Where<ConformancePerson>("age > AND name == 'Ann'") },
        badWhere("a format predicate with too few arguments", message: "argument") { Where<ConformancePerson>("name == %@ AND age > %d", "Ann") },
        badWhere("a format predicate with %K given a number", message: "%K") { Where<ConformancePerson>("%K == 1", 42) },
        badWhere("a format predicate that compares a relationship with a value", message: "pets") { Where<ConformancePerson>("pets == 'Rex'") },
        badWhere("Where(_:isEqualTo:) with a collection", message: "collection") { Where<ConformancePerson>("name", isEqualTo: ["Ann", "bob"]) },
        c("an unknown sort key is an invalidPredicate and changes nothing") { ctx in
            let (stack, store) = try seededStack(ctx)
            try expectCoreStoreError(ctx, "fetchAll sorted by 'nmae'", matching: isInvalidPredicate(containing: "nmae")) {
                _ = try stack.fetchAll(From<ConformancePerson>().orderBy(.ascending("nmae")))
            }
            try expectPeopleUnchanged(ctx, stack, store)
        },
        c("a query of an unknown attribute is an invalidPredicate and changes nothing") { ctx in
            let (stack, store) = try seededStack(ctx)
            try expectCoreStoreError(ctx, "queryAttributes selecting 'nmae'", matching: isInvalidPredicate(containing: "nmae")) {
                _ = try stack.queryAttributes(From<ConformancePerson>(), Select<ConformancePerson, NSDictionary>("nmae"))
            }
            try expectCoreStoreError(ctx, "queryValue of the sum of a string", matching: { if case .invalidPredicate = $0 { return true } else { return false } }) {
                _ = try stack.queryValue(From<ConformancePerson>(), Select<ConformancePerson, Int>(.sum("name")))
            }
            try expectPeopleUnchanged(ctx, stack, store)
        },
    ]
}
