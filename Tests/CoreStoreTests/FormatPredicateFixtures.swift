import Foundation
@testable import CoreStore

/// A model with one field of each stored kind, for format-string tests of literals and
/// argument conversions that `Person` cannot show.
final class Reading: CoreStoreObject {
    @Field.Stored("label") var label: String = ""
    @Field.Stored("flag") var flag: Bool = false
    @Field.Stored("score") var score: Double = 0
    @Field.Stored("price") var price: Decimal = 0
    @Field.Stored("when") var when: Date = Date(timeIntervalSince1970: 0)
    @Field.Stored("blob") var blob: Data = Data()
    @Field.Stored("link") var link: URL?
    @Field.Stored("token") var token: UUID?
    @Field.Stored("big") var big: UInt64 = 0
    @Field.Stored("small") var small: Int8 = 0
}

/// Fixed identifiers used by the `Reading` fixtures.
enum FormatFixtureIDs {
    static let tokenOne = UUID(uuidString: "00000000-0000-0000-0000-000000000001") ?? UUID()
    static let tokenThree = UUID(uuidString: "00000000-0000-0000-0000-000000000003") ?? UUID()
}

/// The people of the format tests, with their ages, nicknames, moods and dogs.
///
/// | name   | age | nickname | mood   | pets               |
/// |--------|-----|----------|--------|--------------------|
/// | Ann    | 31  | Annie    | happy  | Rex, Fido          |
/// | Bob    | 25  | –        | grumpy | Max                |
/// | Cid    | 40  | cid      | happy  | Buddy, Bolt, Bella |
/// | Dee    | 25  | %@       | happy  |                    |
/// | Eve    | 19  | Evie     | grumpy |                    |
/// | Émile  | 50  | –        | happy  |                    |
/// | emile  | 22  | –        | happy  |                    |
/// | ÉMILE  | 33  | –        | grumpy |                    |
/// | O'Neil | 60  | 100%     | happy  |                    |
///
/// Spot is a dog without master; Tom is a cat.
let formatFixturePeople: [(name: String, age: Int, nickname: String?, mood: Mood, pets: [String])] = [
    ("Ann", 31, "Annie", .happy, ["Rex", "Fido"]),
    ("Bob", 25, nil, .grumpy, ["Max"]),
    ("Cid", 40, "cid", .happy, ["Buddy", "Bolt", "Bella"]),
    ("Dee", 25, "%@", .happy, []),
    ("Eve", 19, "Evie", .grumpy, []),
    ("Émile", 50, nil, .happy, []),
    ("emile", 22, nil, .happy, []),
    ("ÉMILE", 33, nil, .grumpy, []),
    ("O'Neil", 60, "100%", .happy, []),
]

/// Every person's name.
let formatFixtureEveryone = formatFixturePeople.map(\.name)

/// A stack holding the people, dogs and readings described above, on a new store of the given kind.
func makeFormatFixtureStack(_ kind: StoreKind) throws -> DataStack {
    let stack = DataStack(CoreStoreSchema(
        modelVersion: "Format1",
        entities: [
            Entity<Animal>("Animal", isAbstract: true),
            Entity<Dog>("Dog"),
            Entity<Cat>("Cat"),
            Entity<Person>("Person"),
            Entity<Reading>("Reading"),
        ],
        versionLock: nil
    ))
    try stack.addStorageAndWait(kind.makeStore())
    try stack.perform(synchronous: { transaction in
        for entry in formatFixturePeople {
            let person = transaction.create(Into<Person>())
            person.name = entry.name
            person.age = entry.age
            person.nickname = entry.nickname
            person.mood = entry.mood
            for petName in entry.pets {
                let dog = transaction.create(Into<Dog>())
                dog.name = petName
                dog.species = "dog"
                dog.master = person
            }
        }
        let stray = transaction.create(Into<Dog>())
        stray.name = "Spot"
        let cat = transaction.create(Into<Cat>())
        cat.name = "Tom"

        let one = transaction.create(Into<Reading>())
        one.label = "one"
        one.flag = true
        one.score = 1.5
        one.price = Decimal(string: "9.99") ?? 0
        one.when = Date(timeIntervalSince1970: 1000)
        one.blob = Data([1, 2])
        one.link = URL(string: "https://a.example/x")
        one.token = FormatFixtureIDs.tokenOne
        one.big = UInt64.max
        one.small = -3

        let two = transaction.create(Into<Reading>())
        two.label = "two"
        two.score = 2.5
        two.price = 20
        two.when = Date(timeIntervalSince1970: 2000)
        two.blob = Data([3])
        two.big = 5
        two.small = 7

        let three = transaction.create(Into<Reading>())
        three.label = "three"
        three.flag = true
        three.score = -0.5
        three.price = Decimal(string: "0.5") ?? 0
        three.when = Date(timeIntervalSince1970: 3000)
        three.link = URL(string: "https://b.example")
        three.token = FormatFixtureIDs.tokenThree
    })
    return stack
}
