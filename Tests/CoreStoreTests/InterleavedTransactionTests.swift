import Foundation
import Testing
@testable import CoreStore

/// Random rounds of unsafe transactions that all start from the same state, edit random keys of
/// random objects, and commit in a random order; the stored result must be what a property-level
/// merge gives (per key, the value of the last commit that changed it, where "changed" means its
/// final value differs from the one the transaction started from; clearing a master removes the
/// one the transaction saw, so a master set meanwhile by another commit stays) with both sides of the
/// `Person.pets` ↔ `Dog.master` relationship in agreement.
@Suite("Interleaved transactions")
struct InterleavedTransactionTests {
    static let people = 4, dogs = 6, rounds = 25, writersPerRound = 3

    /// What the model expects: each person's age and nickname, each dog's master.
    struct Expected: Equatable {
        var ages: [Int]
        var nicknames: [String?]
        var masters: [Int?]
    }

    /// One writer's edits, applied to the model when it commits.
    struct Edits {
        var ages: [Int: Int] = [:]
        var nicknames: [Int: String?] = [:]
        var masters: [Int: Int?] = [:]
    }

    @Test(arguments: StoreKind.allCases)
    func randomInterleavingsMergeByProperty(_ kind: StoreKind) throws {
        for seed: UInt64 in [1, 2] {
            try run(kind, seed: seed)
        }
    }

    private func run(_ kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let stack = try makeStack(kind)
        try stack.perform(synchronous: { t in
            let people = (0..<Self.people).map { i -> Person in
                let person = t.create(Into<Person>())
                person.name = "P\(i)"
                return person
            }
            for i in 0..<Self.dogs {
                let dog = t.create(Into<Dog>())
                dog.name = "D\(i)"
                dog.master = i % 2 == 0 ? people[i % Self.people] : nil
            }
        })
        var expected = Expected(
            ages: Array(repeating: 0, count: Self.people), nicknames: Array(repeating: nil, count: Self.people),
            masters: (0..<Self.dogs).map { $0 % 2 == 0 ? $0 % Self.people : nil }
        )
        for round in 0..<Self.rounds {
            let writers = (0..<Self.writersPerRound).map { _ in stack.beginUnsafe() }
            var edits = Array(repeating: Edits(), count: writers.count)
            for (w, transaction) in writers.enumerated() {
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    try edit(transaction, &edits[w], round: round, &random)
                }
            }
            // Every writer saw the state at the start of the round; a key it set back to (or
            // left at) that value is no change and is not written.
            let base = expected
            for w in writers.indices.shuffled(using: &random) {
                try writers[w].commitAndWait()
                for (person, age) in edits[w].ages where age != base.ages[person] { expected.ages[person] = age }
                for (person, nickname) in edits[w].nicknames where nickname != base.nicknames[person] { expected.nicknames[person] = nickname }
                for (dog, master) in edits[w].masters where master != base.masters[dog] {
                    // Clearing removes the master the writer saw; a newer one stays.
                    if master == nil && expected.masters[dog] != base.masters[dog] { continue }
                    expected.masters[dog] = master
                }
            }
            try expectStored(stack, expected, "\(kind) seed \(seed) round \(round)")
        }
    }

    /// One random edit: an age, a nickname, a dog's master (from either side of the relationship).
    private func edit(_ t: UnsafeDataTransaction, _ edits: inout Edits, round: Int, _ random: inout SplitMix64) throws {
        let p = Int.random(in: 0..<Self.people, using: &random)
        let d = Int.random(in: 0..<Self.dogs, using: &random)
        let person = try #require(try t.fetchOne(From<Person>().where(\.$name == "P\(p)")))
        let dog = try #require(try t.fetchOne(From<Dog>().where(\.$name == "D\(d)")))
        switch Int.random(in: 0..<5, using: &random) {
        case 0:
            person.age = round * 10 + Int.random(in: 0..<10, using: &random)
            edits.ages[p] = person.age
        case 1:
            person.nickname = random.next() % 3 == 0 ? nil : "n\(round)-\(random.next() % 100)"
            edits.nicknames[p] = person.nickname
        case 2:
            dog.master = person
            edits.masters[d] = p
        case 3:
            dog.master = nil
            edits.masters[d] = .some(nil)
        default:
            // From the to-many side: take the dog into this person's pets, or let one go.
            if person.pets.contains(dog) {
                person.pets.remove(dog)
                edits.masters[d] = .some(nil)
            } else {
                person.pets.insert(dog)
                edits.masters[d] = p
            }
        }
    }

    /// The stored state, read by a new transaction, from both sides of the relationship.
    private func expectStored(_ stack: DataStack, _ expected: Expected, _ what: String) throws {
        try stack.perform(synchronous: { t in
            let people = try (0..<Self.people).map { i in try #require(try t.fetchOne(From<Person>().where(\.$name == "P\(i)"))) }
            let dogs = try (0..<Self.dogs).map { i in try #require(try t.fetchOne(From<Dog>().where(\.$name == "D\(i)"))) }
            let masters = dogs.map { dog in dog.master.flatMap { master in people.firstIndex { $0 === master } } }
            let actual = Expected(ages: people.map(\.age), nicknames: people.map(\.nickname), masters: masters)
            #expect(actual == expected, "\(what)")
            for (i, person) in people.enumerated() {
                let petIndexes = Set(person.pets.compactMap { pet in dogs.firstIndex { $0 === pet } })
                let mastered = Set(expected.masters.indices.filter { expected.masters[$0] == i })
                #expect(petIndexes == mastered, "\(what): pets of P\(i)")
            }
        })
    }
}
