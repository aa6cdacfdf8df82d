import Foundation
import Testing
@testable import CoreStore
import CoreStoreStorage

/// One format, its arguments, and the names it must fetch.
struct FormatCase: Sendable, CustomTestStringConvertible {
    let format: String
    let arguments: [(any Sendable)?]
    let expected: [String]

    init(_ format: String, _ arguments: (any Sendable)?..., expect expected: [String]) {
        self.format = format
        self.arguments = arguments
        self.expected = expected
    }

    var argumentArray: [Any?] { arguments.map { $0.map { $0 as Any } } }
    var testDescription: String { "\(format) \(arguments.map { String(describing: $0) })" }
}

private let everyone = formatFixtureEveryone
private func everyoneBut(_ excluded: String...) -> [String] { everyone.filter { !excluded.contains($0) } }
private let withoutPets = ["Dee", "Eve", "Émile", "emile", "ÉMILE", "O'Neil"]

@Suite("Format predicates: results")
struct FormatPredicateTests {
    /// The format fixture, on a store of the given kind.
    struct Fixture {
        let stack: DataStack

        init(_ kind: StoreKind) throws {
            stack = try makeFormatFixtureStack(kind)
        }

        func people(_ format: String, _ arguments: [Any?]) throws -> [String] {
            try stack.fetchAll(From<Person>(), Where<Person>(format, argumentArray: arguments)).map(\.name).sorted()
        }

        func dogs(_ format: String, _ arguments: Any?...) throws -> [String] {
            try stack.fetchAll(From<Dog>(), Where<Dog>(format, argumentArray: arguments)).map(\.name).sorted()
        }

        func readings(_ format: String, _ arguments: Any?...) throws -> [String] {
            try stack.fetchAll(From<Reading>(), Where<Reading>(format, argumentArray: arguments)).map(\.label).sorted()
        }

        func check(_ testCase: FormatCase) throws {
            #expect(try people(testCase.format, testCase.argumentArray) == testCase.expected.sorted(), "\(testCase.format)")
        }
    }

    @Test(arguments: StoreKind.allCases, [
        FormatCase("age == 25", expect: ["Bob", "Dee"]),
        FormatCase("age = 25", expect: ["Bob", "Dee"]),
        FormatCase("age != 25", expect: everyoneBut("Bob", "Dee")),
        FormatCase("age <> 25", expect: everyoneBut("Bob", "Dee")),
        FormatCase("age < 25", expect: ["Eve", "emile"]),
        FormatCase("age <= 25", expect: ["Bob", "Dee", "Eve", "emile"]),
        FormatCase("age =< 25", expect: ["Bob", "Dee", "Eve", "emile"]),
        FormatCase("age > 40", expect: ["Émile", "O'Neil"]),
        FormatCase("age >= 40", expect: ["Cid", "Émile", "O'Neil"]),
        FormatCase("age => 40", expect: ["Cid", "Émile", "O'Neil"]),
        FormatCase("age>=40", expect: ["Cid", "Émile", "O'Neil"]),
        FormatCase("25 == age", expect: ["Bob", "Dee"]),
        FormatCase("25 != age", expect: everyoneBut("Bob", "Dee")),
        FormatCase("30 < age", expect: ["Ann", "Cid", "Émile", "ÉMILE", "O'Neil"]),
        FormatCase("40 >= age", expect: everyoneBut("Émile", "O'Neil")),
        FormatCase("age > -1", expect: everyone),
        FormatCase("age < -5", expect: []),
    ])
    func comparisonOperatorsAndMirroredComparisons(_ kind: StoreKind, _ testCase: FormatCase) throws {
        try Fixture(kind).check(testCase)
    }

    @Test(arguments: StoreKind.allCases, [
        FormatCase("%K == %@", "name", "Ann", expect: ["Ann"]),
        FormatCase("age == %d", 25, expect: ["Bob", "Dee"]),
        FormatCase("age == %i", Int32(25), expect: ["Bob", "Dee"]),
        FormatCase("age == %ld", Int64(25), expect: ["Bob", "Dee"]),
        FormatCase("age == %lld", Int16(25), expect: ["Bob", "Dee"]),
        FormatCase("age < %u", UInt(25), expect: ["Eve", "emile"]),
        FormatCase("age < %lu", UInt8(25), expect: ["Eve", "emile"]),
        FormatCase("age > %f", 39.5, expect: ["Cid", "Émile", "O'Neil"]),
        FormatCase("age > %lf", Float(39.5), expect: ["Cid", "Émile", "O'Neil"]),
        FormatCase("age > %f", 40, expect: ["Émile", "O'Neil"]),
        FormatCase("name == %s", "Dee", expect: ["Dee"]),
        FormatCase("nickname == '100%%'", expect: ["O'Neil"]),
        FormatCase("nickname == '%@'", expect: ["Dee"]),
        FormatCase("%K.%K == %@", "pets", "name", "Max", expect: ["Bob"]),
        FormatCase("mood == %@", Mood.grumpy, expect: ["Bob", "Eve", "ÉMILE"]),
        FormatCase("nickname == %@", nil, expect: ["Bob", "Émile", "emile", "ÉMILE"]),
        FormatCase("nickname == %@", Optional<String>.none, expect: ["Bob", "Émile", "emile", "ÉMILE"]),
        FormatCase("name == %@", Optional(Optional("Eve")), expect: ["Eve"]),
        FormatCase("name == %@", Substring("Ann Bob").prefix(3), expect: ["Ann"]),
        FormatCase("name == %@", Character("x"), expect: []),
    ])
    func everySpecifier(_ kind: StoreKind, _ testCase: FormatCase) throws {
        try Fixture(kind).check(testCase)
    }

    @Test(arguments: StoreKind.allCases, [
        FormatCase("name == 'Ann'", expect: ["Ann"]),
        FormatCase("name == \"Ann\"", expect: ["Ann"]),
        FormatCase("name == 'O\\'Neil'", expect: ["O'Neil"]),
        FormatCase("name == \"O'Neil\"", expect: ["O'Neil"]),
        FormatCase("name == \"A\\u006En\"", expect: ["Ann"]),
        FormatCase("name == 'A\\u{6E}n'", expect: ["Ann"]),
        FormatCase("name == '\\u00C9mile'", expect: ["Émile"]),
        FormatCase("age == 25.0", expect: ["Bob", "Dee"]),
        FormatCase("age < 2.5e1", expect: ["Eve", "emile"]),
        FormatCase("nickname == nil", expect: ["Bob", "Émile", "emile", "ÉMILE"]),
        FormatCase("nickname == NULL", expect: ["Bob", "Émile", "emile", "ÉMILE"]),
        FormatCase("nickname = Nil", expect: ["Bob", "Émile", "emile", "ÉMILE"]),
        FormatCase("nil == nickname", expect: ["Bob", "Émile", "emile", "ÉMILE"]),
        FormatCase("nickname != nil", expect: ["Ann", "Cid", "Dee", "Eve", "O'Neil"]),
        FormatCase("#name == 'Bob'", expect: ["Bob"]),
    ])
    func everyLiteralForm(_ kind: StoreKind, _ testCase: FormatCase) throws {
        try Fixture(kind).check(testCase)
    }

    @Test(arguments: StoreKind.allCases, [
        FormatCase("age BETWEEN {25, 31}", expect: ["Ann", "Bob", "Dee"]),
        FormatCase("age between %@", [25, 31], expect: ["Ann", "Bob", "Dee"]),
        FormatCase("age BETWEEN {%d, %d}", 19, 22, expect: ["Eve", "emile"]),
        FormatCase("age IN {19, 60}", expect: ["Eve", "O'Neil"]),
        FormatCase("age IN %@", [19, 60], expect: ["Eve", "O'Neil"]),
        FormatCase("age in %@", Set([19, 60]), expect: ["Eve", "O'Neil"]),
        FormatCase("age IN {}", expect: []),
        FormatCase("age IN %@", [Int](), expect: []),
        FormatCase("name IN {'Ann', 'Zed'}", expect: ["Ann"]),
        FormatCase("name IN[c] {'ANN', 'bob'}", expect: ["Ann", "Bob"]),
        FormatCase("mood IN %@", [Mood.grumpy], expect: ["Bob", "Eve", "ÉMILE"]),
        FormatCase("nickname IN {nil, 'cid'}", expect: ["Bob", "Cid", "Émile", "emile", "ÉMILE"]),
        FormatCase("'Rex' IN pets.name", expect: ["Ann"]),
    ])
    func betweenAndIn(_ kind: StoreKind, _ testCase: FormatCase) throws {
        try Fixture(kind).check(testCase)
    }

    @Test(arguments: StoreKind.allCases, [
        FormatCase("name == 'emile'", expect: ["emile"]),
        FormatCase("name ==[c] 'émile'", expect: ["Émile", "ÉMILE"]),
        FormatCase("name ==[d] 'Emile'", expect: ["Émile"]),
        FormatCase("name ==[cd] 'EMILE'", expect: ["Émile", "emile", "ÉMILE"]),
        FormatCase("name ==[CD] %@", "emile", expect: ["Émile", "emile", "ÉMILE"]),
        FormatCase("name !=[c] 'ann'", expect: everyoneBut("Ann")),
        FormatCase("name != [cd] 'emile'", expect: everyoneBut("Émile", "emile", "ÉMILE")),
        FormatCase("name BEGINSWITH 'E'", expect: ["Eve"]),
        FormatCase("name BEGINSWITH[c] 'e'", expect: ["Eve", "emile"]),
        FormatCase("name BEGINSWITH[d] 'E'", expect: ["Eve", "Émile", "ÉMILE"]),
        FormatCase("name beginswith[cd] 'e'", expect: ["Eve", "Émile", "emile", "ÉMILE"]),
        FormatCase("name ENDSWITH 'ile'", expect: ["Émile", "emile"]),
        FormatCase("name ENDSWITH[c] 'ILE'", expect: ["Émile", "emile", "ÉMILE"]),
        FormatCase("name CONTAINS 'mil'", expect: ["Émile", "emile"]),
        FormatCase("name CONTAINS[c] 'MIL'", expect: ["Émile", "emile", "ÉMILE"]),
        FormatCase("name CONTAINS[d] 'Em'", expect: ["Émile"]),
        FormatCase("name CONTAINS[cd] 'ÉM'", expect: ["Émile", "emile", "ÉMILE"]),
        FormatCase("name LIKE 'E*'", expect: ["Eve"]),
        FormatCase("name LIKE '?ve'", expect: ["Eve"]),
        FormatCase("name LIKE '???'", expect: ["Ann", "Bob", "Cid", "Dee", "Eve"]),
        FormatCase("name LIKE[c] '*mile'", expect: ["Émile", "emile", "ÉMILE"]),
        FormatCase("name LIKE[cd] 'e?ile'", expect: ["Émile", "emile", "ÉMILE"]),
        FormatCase("name MATCHES '[A-D].*'", expect: ["Ann", "Bob", "Cid", "Dee"]),
        FormatCase("name MATCHES '\\w{3}'", expect: ["Ann", "Bob", "Cid", "Dee", "Eve"]),
        FormatCase("name MATCHES[c] 'e.*'", expect: ["Eve", "emile"]),
        FormatCase("name MATCHES[cd] 'e.*'", expect: ["Eve", "Émile", "emile", "ÉMILE"]),
    ])
    func stringOperatorsAndModifiers(_ kind: StoreKind, _ testCase: FormatCase) throws {
        try Fixture(kind).check(testCase)
    }

    @Test(arguments: StoreKind.allCases, [
        FormatCase("age < 20 OR age > 50 AND name BEGINSWITH 'O'", expect: ["Eve", "O'Neil"]),
        FormatCase("(age < 20 OR age > 50) AND name BEGINSWITH 'O'", expect: ["O'Neil"]),
        FormatCase("NOT age == 25 AND age < 30", expect: ["Eve", "emile"]),
        FormatCase("NOT (age == 25 AND name == 'Bob')", expect: everyoneBut("Bob")),
        FormatCase("!(age >= 25) && name != 'Eve' || name == 'Ann'", expect: ["Ann", "emile"]),
        FormatCase("not not age == 25", expect: ["Bob", "Dee"]),
        FormatCase("age == 25 and name == 'Bob' or name == 'Eve'", expect: ["Bob", "Eve"]),
        FormatCase("((age == 25))", expect: ["Bob", "Dee"]),
        FormatCase("TRUEPREDICATE", expect: everyone),
        FormatCase("FALSEPREDICATE", expect: []),
        FormatCase("truepredicate AND age == 25", expect: ["Bob", "Dee"]),
        FormatCase("FALSEPREDICATE OR age == 19", expect: ["Eve"]),
        FormatCase("NOT FALSEPREDICATE", expect: everyone),
    ])
    func logicPrecedenceAndConstants(_ kind: StoreKind, _ testCase: FormatCase) throws {
        try Fixture(kind).check(testCase)
    }

    @Test(arguments: StoreKind.allCases, [
        FormatCase("ANY pets.name BEGINSWITH 'B'", expect: ["Cid"]),
        FormatCase("SOME pets.name BEGINSWITH 'B'", expect: ["Cid"]),
        FormatCase("pets.name BEGINSWITH 'B'", expect: ["Cid"]),
        FormatCase("ALL pets.name BEGINSWITH 'B'", expect: ["Cid"] + withoutPets),
        FormatCase("NONE pets.name BEGINSWITH 'B'", expect: everyoneBut("Cid")),
        FormatCase("any pets.name == 'Rex'", expect: ["Ann"]),
        FormatCase("ALL pets.name IN {'Rex', 'Fido', 'Max'}", expect: ["Ann", "Bob"] + withoutPets),
        FormatCase("ANY pets.master.name == 'Bob'", expect: ["Bob"]),
        FormatCase("pets.@count > 2", expect: ["Cid"]),
        FormatCase("pets.@count == 0", expect: withoutPets),
        FormatCase("pets.@count BETWEEN {1, 2}", expect: ["Ann", "Bob"]),
        FormatCase("2 < pets.@count", expect: ["Cid"]),
        FormatCase("%K.@count > %d", "pets", 2, expect: ["Cid"]),
        FormatCase("%K > 2", "pets.@count", expect: ["Cid"]),
        FormatCase("pets == nil", expect: withoutPets),
        FormatCase("pets != nil", expect: ["Ann", "Bob", "Cid"]),
    ])
    func quantifiersAndCountOverRelationships(_ kind: StoreKind, _ testCase: FormatCase) throws {
        try Fixture(kind).check(testCase)
    }

    @Test(arguments: StoreKind.allCases)
    func relationshipKeyPathsFromTheDogSide(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        #expect(try fixture.dogs("master.name == 'Ann'") == ["Fido", "Rex"])
        #expect(try fixture.dogs("master.name BEGINSWITH[c] 'c'") == ["Bella", "Bolt", "Buddy"])
        #expect(try fixture.dogs("master.age > 30") == ["Bella", "Bolt", "Buddy", "Fido", "Rex"])
        #expect(try fixture.dogs("master.pets.@count >= 3") == ["Bella", "Bolt", "Buddy"])
        #expect(try fixture.dogs("master == nil") == ["Spot"])
        #expect(try fixture.dogs("master != nil") == ["Bella", "Bolt", "Buddy", "Fido", "Max", "Rex"])
    }

    @Test(arguments: StoreKind.allCases)
    func relationshipsCompareWithObjectsAndObjectIDs(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        let stack = fixture.stack
        let ann = try #require(try stack.fetchOne(From<Person>().where(\.$name == "Ann")))
        let bob = try #require(try stack.fetchOne(From<Person>().where(\.$name == "Bob")))
        let annID = try #require(ann.cs_id())
        let bobID = try #require(bob.cs_id())
        let rex = try #require(try stack.fetchOne(From<Dog>().where(\.$name == "Rex")))
        let max = try #require(try stack.fetchOne(From<Dog>().where(\.$name == "Max")))

        #expect(try fixture.dogs("master == %@", ann) == ["Fido", "Rex"])
        #expect(try fixture.dogs("master == %@", annID) == ["Fido", "Rex"])
        #expect(try fixture.dogs("master != %@", ann) == ["Bella", "Bolt", "Buddy", "Max", "Spot"])
        #expect(try fixture.dogs("master IN %@", [ann, bob]) == ["Fido", "Max", "Rex"])
        #expect(try fixture.dogs("master IN %@", Set([annID, bobID])) == ["Fido", "Max", "Rex"])
        #expect(try fixture.dogs("master IN {%@, %@}", ann, bobID) == ["Fido", "Max", "Rex"])
        #expect(try fixture.dogs("master IN %@", [Person]()) == [])
        #expect(try fixture.people("pets CONTAINS %@", [rex]) == ["Ann"])
        #expect(try fixture.people("%@ IN pets", [rex]) == ["Ann"])
        #expect(try fixture.people("pets == %@", [max]) == ["Bob"])
        #expect(try fixture.people("pets IN %@", [[rex, max]]) == ["Ann", "Bob"])
        #expect(try fixture.people("NOT pets CONTAINS %@ AND pets != nil", [rex]) == ["Bob", "Cid"])
    }

    @Test(arguments: StoreKind.allCases)
    func objectArgumentsWorkForUncommittedObjectsInsideATransaction(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let matched = try stack.perform(synchronous: { transaction -> [String] in
            let zoe = transaction.create(Into<Person>())
            zoe.name = "Zoe"
            let pup = transaction.create(Into<Dog>())
            pup.name = "Pup"
            pup.master = zoe
            let byMaster = try transaction.fetchAll(From<Dog>(), Where<Dog>("master == %@", zoe)).map(\.name)
            let byPet = try transaction.fetchAll(From<Person>().where(format: "pets CONTAINS %@ OR name == %@", pup, "Ann")).map(\.name)
            return byMaster + byPet.sorted()
        })
        #expect(matched == ["Pup", "Ann", "Zoe"])
    }

    @Test(arguments: StoreKind.allCases)
    func readingsShowEveryStoredKind(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        #expect(try fixture.readings("flag == true") == ["one", "three"])
        #expect(try fixture.readings("flag == YES") == ["one", "three"])
        #expect(try fixture.readings("flag = TRUE") == ["one", "three"])
        #expect(try fixture.readings("flag == no") == ["two"])
        #expect(try fixture.readings("flag == FALSE") == ["two"])
        #expect(try fixture.readings("flag == %@", true) == ["one", "three"])
        #expect(try fixture.readings("flag == %@", NSNumber(value: false)) == ["two"])
        #expect(try fixture.readings("score > 1.0") == ["one", "two"])
        #expect(try fixture.readings("score < 0") == ["three"])
        #expect(try fixture.readings("score == %f", 2.5) == ["two"])
        #expect(try fixture.readings("score == %@", NSNumber(value: 2.5)) == ["two"])
        #expect(try fixture.readings("score < %@", Float(0)) == ["three"])
        #expect(try fixture.readings("price > %@", Decimal(string: "9.5")) == ["one", "two"])
        #expect(try fixture.readings("price == 0.5") == ["three"])
        #expect(try fixture.readings("price < %f", Decimal(1)) == ["three"])
        #expect(try fixture.readings("when > %@", Date(timeIntervalSince1970: 1500)) == ["three", "two"])
        #expect(try fixture.readings("when BETWEEN %@", [Date(timeIntervalSince1970: 500), Date(timeIntervalSince1970: 2500)]) == ["one", "two"])
        #expect(try fixture.readings("blob == %@", Data([3])) == ["two"])
        #expect(try fixture.readings("link == %@", URL(string: "https://a.example/x")) == ["one"])
        #expect(try fixture.readings("link BEGINSWITH 'https://b'") == ["three"])
        #expect(try fixture.readings("link == %@", nil) == ["two"])
        #expect(try fixture.readings("link == %@", NSNull()) == ["two"])
        #expect(try fixture.readings("token == %@", FormatFixtureIDs.tokenOne) == ["one"])
        #expect(try fixture.readings("token IN %@", [FormatFixtureIDs.tokenOne, FormatFixtureIDs.tokenThree]) == ["one", "three"])
        #expect(try fixture.readings("big == %@", UInt64.max) == ["one"])
        #expect(try fixture.readings("big == %llu", UInt64.max) == ["one"])
        #expect(try fixture.readings("big == %@", NSNumber(value: UInt64.max)) == ["one"])
        #expect(try fixture.readings("big > %lu", UInt(4)) == ["one", "two"])
        #expect(try fixture.readings("small < %d", Int8(0)) == ["one"])
        #expect(try fixture.readings("small == -3") == ["one"])
        #expect(try fixture.readings("small == %@", NSNumber(value: Int8(7))) == ["two"])
        #expect(try fixture.readings("label == %@", NSString(string: "two")) == ["two"])
        #expect(try fixture.readings("label == %s", NSString(string: "two")) == ["two"])
    }

    @Test(arguments: StoreKind.allCases)
    func keyPathStringInitializers(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let ann = try #require(try stack.fetchOne(From<Person>().where(\.$name == "Ann")))
        let bob = try #require(try stack.fetchOne(From<Person>().where(\.$name == "Bob")))
        func names(_ clause: Where<Person>) throws -> [String] { try stack.fetchAll(From<Person>(), clause).map(\.name).sorted() }
        func dogNames(_ clause: Where<Dog>) throws -> [String] { try stack.fetchAll(From<Dog>(), clause).map(\.name).sorted() }

        #expect(try names(Where("name", isEqualTo: "Ann")) == ["Ann"])
        #expect(try names(Where("mood", isEqualTo: Mood.grumpy)) == ["Bob", "Eve", "ÉMILE"])
        #expect(try names(Where("nickname", isEqualTo: nil)) == ["Bob", "Émile", "emile", "ÉMILE"].sorted())
        #expect(try names(Where("pets.@count", isEqualTo: 3)) == ["Cid"])
        #expect(try names(Where("age", isMemberOf: [19, 60])) == ["Eve", "O'Neil"])
        #expect(try names(Where("age", isMemberOf: [Int]())) == [])
        #expect(try dogNames(Where("master.name", isEqualTo: "Ann")) == ["Fido", "Rex"])
        #expect(try dogNames(Where("master", isEqualTo: ann)) == ["Fido", "Rex"])
        #expect(try dogNames(Where("master", isEqualTo: bob.cs_id())) == ["Max"])
        #expect(try dogNames(Where("master", isEqualTo: nil)) == ["Spot"])
        #expect(try dogNames(Where("master", isMemberOf: [ann, bob])) == ["Fido", "Max", "Rex"])
    }

    @Test(arguments: StoreKind.allCases)
    func chainFormsOnFromAndFetchChainBuilder(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        #expect(try stack.fetchAll(From<Person>().where(format: "age == %d", 25)).map(\.name).sorted() == ["Bob", "Dee"])
        #expect(try stack.fetchAll(From<Person>().where(format: "age == %d", argumentArray: [25])).map(\.name).sorted() == ["Bob", "Dee"])
        #expect(try stack.fetchAll(From<Person>().where(format: "TRUEPREDICATE", argumentArray: nil)).count == everyone.count)
        let chained = From<Person>().where(\.$age == 25).where(format: "name == %@", "Dee")
        #expect(try stack.fetchAll(chained).map(\.name) == ["Dee"])
        let chainedArray = From<Person>().orderBy(.ascending(\.$name)).where(format: "age < %d", argumentArray: [23])
        #expect(try stack.fetchAll(chainedArray).map(\.name) == ["Eve", "emile"])
        #expect(try stack.fetchCount(From<Person>().where(format: "age > %d", 30)) == 5)
    }

    @Test(arguments: StoreKind.allCases)
    func formatInitializerLeavesBoolAndPredicateInitializersUnambiguous(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let flag = false
        #expect(try stack.fetchAll(From<Person>(), Where<Person>(true)).count == everyone.count)
        #expect(try stack.fetchAll(From<Person>(), Where<Person>(flag)).isEmpty)
        #expect(try stack.fetchAll(From<Person>(), Where<Person>(RecordPredicate.constant(true))).count == everyone.count)
        #expect(try stack.fetchAll(From<Person>(), Where<Person>("TRUEPREDICATE")).count == everyone.count)
        #expect(Where<Person>(true).predicate == .constant(true))
        #expect(Where<Person>("FALSEPREDICATE").predicate == .constant(false))
        let combined = Where<Person>("age > %d", 30) && !Where<Person>("name == 'Cid'") || Where<Person>(false)
        #expect(try stack.fetchAll(From<Person>(), combined).map(\.name).sorted() == ["Ann", "Émile", "ÉMILE", "O'Neil"].sorted())
    }

    @Test func lexerTokensCarryTheirCharacterOffsets() throws {
        let tokens = try PredicateFormatLexer.tokens(of: "Émile ==[cd] 'é' AND pets.@count > -2.5")
        #expect(tokens.map(\.kind) == [
            .word("Émile"), .symbol(.equal), .modifier("cd"), .string("é"), .word("AND"), .word("pets"),
            .symbol(.dot), .function("count"), .symbol(.greater), .decimal(-2.5), .end,
        ])
        #expect(tokens.map(\.offset) == [0, 6, 8, 13, 17, 21, 25, 26, 33, 35, 39])
        let placeholders = try PredicateFormatLexer.tokens(of: "%K %@ %lld '%d' %%").compactMap { token -> String? in
            if case .placeholder(let placeholder) = token.kind { return "\(placeholder.spelling)#\(placeholder.argumentIndex)" }
            return nil
        }
        #expect(placeholders == ["%K#0", "%@#1", "%lld#2"])
    }

    @Test func parsedTreeHasTheExpectedShape() {
        let predicate = Where<Person>("ALL pets.name LIKE[cd] %@ OR NOT 30 < age AND pets.@count >= 1", "r*").predicate
        let like = RecordPredicate.comparison(Comparison(["pets", "name"], .like, .value(.string("r*")), options: [.caseInsensitive, .diacriticInsensitive], quantifier: .all))
        let age = RecordPredicate.comparison(Comparison(["age"], .greater, .value(.int(30))))
        let count = RecordPredicate.comparison(Comparison(["pets"], .greaterOrEqual, .value(.int(1)), function: .count))
        #expect(predicate == .or([like, .and([.not(age), count])]))
    }
}
