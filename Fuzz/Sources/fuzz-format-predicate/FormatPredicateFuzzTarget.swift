import CoreStore
import Foundation

/// The model the fuzzed predicates run against: every attribute kind a format names, and a
/// to-many relationship for `ANY`, `@count` and key paths through it.
final class FuzzPerson: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("score") var score: Double = 0
    @Field.Stored("nickname") var nickname: String?
    @Field.Relationship("friends") var friends: [FuzzPerson]
}

/// An in-memory stack with a few people, made once.
private let stack: DataStack = {
    let stack = DataStack(CoreStoreSchema(modelVersion: "Fuzz", entities: [Entity<FuzzPerson>("Person")]))
    do {
        try stack.addStorageAndWait(InMemoryStore())
        try stack.perform(synchronous: { t in
            var people: [FuzzPerson] = []
            for (i, name) in ["Ann", "bob", "Émile", "", "O'Hara \"q\""].enumerated() {
                let person = t.create(Into<FuzzPerson>())
                person.name = name
                person.age = i * 17 - 20
                person.score = Double(i) / 3
                person.nickname = i % 2 == 0 ? nil : name.uppercased()
                person.friends = people
                people.append(person)
            }
        })
    } catch {
        fatalError("cannot set up the fuzz stack: \(error)")
    }
    return stack
}()

/// The arguments a fuzzed format's specifiers draw from, in order.
nonisolated(unsafe) private let arguments: [Any?] = ["name", 30, "A", [1, 2, 3], 2.5, nil, "friends.name", ["x", "bob"]]

/// One input: text used as a format predicate with a fixed argument list, then as the filter of
/// a fetch, a count and a query. A malformed format must come back as
/// `CoreStoreError.invalidPredicate`; a valid one must run or throw a `CoreStoreError`. Any trap
/// or memory error is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func formatPredicateFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let format = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let filter = Where<FuzzPerson>(format, argumentArray: arguments)
    do {
        _ = try stack.fetchAll(From<FuzzPerson>().where(filter).orderBy(.ascending(\.$name)))
        _ = try stack.fetchCount(From<FuzzPerson>().where(filter))
    } catch {
        // Every failure here is a CoreStoreError by the API's typed throws.
    }
    return 0
}
