import Foundation
import Testing
@testable import CoreStore

/// A bad format, its arguments, and a fragment the error message must contain.
struct BadFormatCase: Sendable, CustomTestStringConvertible {
    let format: String
    let arguments: [(any Sendable)?]
    let fragment: String

    init(_ format: String, _ arguments: (any Sendable)?..., message fragment: String) {
        self.format = format
        self.arguments = arguments
        self.fragment = fragment
    }

    var argumentArray: [Any?] { arguments.map { $0.map { $0 as Any } } }
    var testDescription: String { format }
}

/// Not a value the format arguments understand.
private struct Opaque: Sendable {}

@Suite("Format predicates: bad input")
struct FormatPredicateErrorTests {
    /// The format fixture, on a store of the given kind.
    struct Fixture {
        let stack: DataStack

        init(_ kind: StoreKind) throws {
            stack = try makeFormatFixtureStack(kind)
        }

        /// The message of the `invalidPredicate` error a fetch with `clause` throws.
        func fetchFailure<O: CoreStoreObject>(_ clause: Where<O>) -> String? {
            do {
                _ = try stack.fetchAll(From<O>(), clause)
                return nil
            } catch let error as CoreStoreError {
                guard case .invalidPredicate(let message) = error else {
                    Issue.record("expected invalidPredicate, got \(error)")
                    return nil
                }
                return message
            } catch {
                Issue.record("expected a CoreStoreError, got \(error)")
                return nil
            }
        }
    }

    @Test(arguments: StoreKind.allCases, [
        BadFormatCase("age > AND x", message: "Expected a value after '>' at position 7 in \"age > AND x\""),
        BadFormatCase("age >", message: "Expected a value after '>' at position 6"),
        BadFormatCase("", message: "The format is empty"),
        BadFormatCase("   ", message: "The format is empty"),
        BadFormatCase("age > 5 name", message: "Expected AND, OR or the end of the format, but found 'name' at position 9"),
        BadFormatCase("(age > 5", message: "Expected ')' to close the '(' at position 1, but found the end of the format at position 9"),
        BadFormatCase("age > 5)", message: "Unmatched ')' at position 8"),
        BadFormatCase("name == 'Ann", message: "The string starting with ' is not closed at position 9"),
        BadFormatCase("age == 'a\\u{zz}'", message: "Invalid unicode escape; write \\u{1F600} or \\u00E9 at position 10"),
        BadFormatCase("name ==[c] 'Émile' age", message: "but found 'age' at position 20"),
        BadFormatCase("token == %d", UUID(), message: "must be an integer, but it is a UUID ("),
        BadFormatCase("age ~ 5", message: "Unexpected character '~' at position 5"),
        BadFormatCase("age 5", message: "Expected an operator such as ==, <, IN or CONTAINS after 'age' at position 5"),
        BadFormatCase("name[c] == 'a'", message: "go right after the operator, as in '==[c]' at position 5"),
        BadFormatCase("name LIKE[x] 'a'", message: "Unknown modifier '[x]'; use [c], [d] or [cd] at position 10"),
        BadFormatCase("age == name", message: "Comparing two key paths ('age' and 'name') is not supported; compare a key path with a value or a specifier such as %@ at position 8"),
        BadFormatCase("5 == 6", message: "A comparison needs a key path on one side, but both sides of '==' are values at position 1"),
        BadFormatCase("age == 99999999999999999999", message: "does not fit in 64 bits at position 8"),
        BadFormatCase("age == 12abc", message: "'12abc' is not a valid number at position 8"),
        BadFormatCase("age == 1.5.2", message: "'1.5.2' is not a valid number at position 8"),
        BadFormatCase("name BEGINSWITH 5", message: "'BEGINSWITH' needs a string, but got 5 at position 17"),
        BadFormatCase("age BETWEEN {1}", message: "'BETWEEN' needs exactly two values, as in BETWEEN {1, 5}, but got a list of 1 values at position 13"),
        BadFormatCase("age BETWEEN %@", [1, 2, 3], message: "'BETWEEN' needs exactly two values"),
        BadFormatCase("age IN 5", message: "'IN' needs a list such as {1, 2} or a collection argument, but got 5 at position 8"),
        BadFormatCase("age == {1, 2}", message: "'==' compares with a single value, but got a list of 2 values; use IN for a list at position 8"),
        BadFormatCase("name MATCHES '('", message: "'(' is not a valid regular expression at position 14"),
        BadFormatCase("age > %x", 1, message: "Unsupported format specifier '%x'"),
        BadFormatCase("pets.@count.name > 1", message: "'@count' must be the last part of a key path at position 12"),
        BadFormatCase("pets.@sum > 1", message: "Unknown function '@sum'; only '@count' is supported at position 6"),
        BadFormatCase("@count > 1", message: "'@count' must follow a relationship key path, as in 'pets.@count' at position 1"),
        BadFormatCase("'A' BEGINSWITH name", message: "'BEGINSWITH' needs the key path on its left, as in 'name BEGINSWITH …' at position 1"),
        BadFormatCase("ANY 5 == age", message: "'ANY' must be followed by a key path at position 1"),
        BadFormatCase("ANY", message: "Expected a key path after 'ANY' at position 4"),
        BadFormatCase("age == $x", message: "Substitution variables ('$name') are not supported; use a format specifier such as %@ at position 8"),
        BadFormatCase("name == %%", message: "Expected a value after '=='; '%%' stands for '%' only inside a quoted string at position 9"),
        BadFormatCase("age IN {1, {2}}", message: "Expected a value in the list after ',' at position 12"),
        BadFormatCase("age IN {1 2}", message: "Expected ',' or '}' in the list that starts at position 8 at position 11"),
        BadFormatCase("age IN {%@}", [1, 2], message: "Lists cannot be nested"),
        BadFormatCase("age == 5 AND", message: "Expected a comparison after 'AND' at position 13"),
        BadFormatCase("age > 5 OR", message: "Expected a comparison after 'OR' at position 11"),
        BadFormatCase("NOT", message: "Expected a comparison after 'NOT' at position 4"),
        BadFormatCase("age > AND", message: "Expected a value after '>' at position 7"),
        BadFormatCase("age > %d AND name == %@", 30, message: "Wrong number of arguments: the format uses 2 arguments but 1 was given; the first specifier without one is '%@' at position 22"),
        BadFormatCase("age > %d", 1, 2, message: "the format uses 1 argument but 2 were given in \"age > %d\""),
        BadFormatCase("age > 1", 1, message: "the format uses 0 arguments but 1 was given"),
        BadFormatCase("age > %d", "abc", message: "Argument 1 for '%d' must be an integer, but it is a String (\"abc\") at position 7"),
        BadFormatCase("age > %d", 2.5, message: "Argument 1 for '%d' must be an integer, but it is a Double (2.5) at position 7"),
        BadFormatCase("age > %d", true, message: "Argument 1 for '%d' must be an integer, but it is a Bool (true)"),
        BadFormatCase("age > %d", nil, message: "Argument 1 for '%d' must be an integer, but it is nil"),
        BadFormatCase("age > %u", -1, message: "Argument 1 for '%u' must be a non-negative integer, but it is -1 at position 7"),
        BadFormatCase("age > %f", "x", message: "Argument 1 for '%f' must be a number, but it is a String (\"x\")"),
        BadFormatCase("name == %s", 5, message: "Argument 1 for '%s' must be a string, but it is an Int (5) at position 9"),
        BadFormatCase("%K == 1", 5, message: "Argument 1 for '%K' must be a string, but it is an Int (5) at position 1"),
        BadFormatCase("age == 1 OR %K == 1", "a..b", message: "Argument 1 for '%K' must be a key path such as 'name' or 'master.name', but it is \"a..b\" at position 13"),
        BadFormatCase("%K == 1", "@count", message: "may only end with '@count' after a relationship"),
        BadFormatCase("age IN %@", [[1]], message: "Argument 1 for '%@' contains an Array<Int> ([1]) at index 0, which is not a value, an object or an ObjectID at position 8"),
        BadFormatCase("name == %@", Opaque(), message: "Argument 1 for '%@' is an Opaque"),
        BadFormatCase("name BEGINSWITH %@", ["a"], message: "'BEGINSWITH' needs a string, but got a list of 1 values at position 17"),
    ])
    func malformedFormatsFailTheFetchWithThePosition(_ kind: StoreKind, _ testCase: BadFormatCase) throws {
        let fixture = try Fixture(kind)
        let clause = Where<Person>(testCase.format, argumentArray: testCase.argumentArray)
        guard case .invalidPredicate(let direct)? = clause.error else {
            Issue.record("\(testCase.format) should carry an invalidPredicate error, has \(String(describing: clause.error))")
            return
        }
        #expect(direct.contains(testCase.fragment), "\(direct)")
        let thrown = fixture.fetchFailure(clause)
        #expect(thrown == direct)
    }

    @Test(arguments: StoreKind.allCases, [
        ("agee > 5", "'Person' has no attribute or relationship named 'agee' (in key path 'agee')"),
        ("pets.nam == 'Rex'", "'Dog' has no attribute or relationship named 'nam' (in key path 'pets.nam')"),
        ("name.first == 'A'", "'name' in 'name.first' is an attribute of 'Person', so nothing can follow it"),
        ("age.@count > 1", "'age.@count' needs a relationship, but 'age' is an attribute of 'Person'"),
        ("pets == 'Rex'", "'pets' ends at the relationship 'pets' of 'Person', so it can only be compared with objects, ObjectIDs or nil"),
        ("pets BEGINSWITH 'R'", "use 'pets.@count' to compare its size"),
        ("Name == 'Ann'", "'Person' has no attribute or relationship named 'Name'"),
    ])
    func unknownKeysAreReportedByTheFetchForItsEntity(_ kind: StoreKind, _ key: (String, String)) throws {
        let fixture = try Fixture(kind)
        let (format, fragment) = key
        let clause = Where<Person>(format)
        #expect(clause.error == nil, "keys are checked at fetch time")
        let message = fixture.fetchFailure(clause)
        #expect(message?.contains(fragment) == true, "\(message ?? "no error")")
    }

    @Test(arguments: StoreKind.allCases)
    func objectsComparedWithAttributesAreRejectedClearly(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        let stack = fixture.stack
        let rex = try #require(try stack.fetchOne(From<Dog>().where(\.$name == "Rex")))
        let message = fixture.fetchFailure(Where<Person>("name == %@", rex))
        #expect(message?.contains("'name' ends at the attribute 'name' of 'Person', so it cannot be compared with objects") == true, "\(message ?? "no error")")
        let ordering = Where<Person>("pets < %@", rex)
        #expect(fixture.fetchFailure(ordering)?.contains("'<' cannot order objects") == true)
        let mixed = Where<Person>("pets IN %@", [rex, 5] as [Any])
        #expect(fixture.fetchFailure(mixed)?.contains("not a mix of both") == true)
        let metaInstance = Where<Person>("pets CONTAINS %@", Dog(asMeta: ()))
        #expect(fixture.fetchFailure(metaInstance)?.contains("is a Dog that belongs to no context") == true)
    }

    @Test(arguments: StoreKind.allCases)
    func keyPathInitializersReportBadInput(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        let emptyKey = Where<Person>("name..x", isEqualTo: "a")
        #expect(fixture.fetchFailure(emptyKey)?.contains("Where(\"name..x\", isEqualTo:): The key path must be a key path such as") == true)
        let collection = Where<Person>("age", isEqualTo: [1, 2])
        #expect(fixture.fetchFailure(collection)?.contains("use Where(_:isMemberOf:)") == true)
        let opaque = Where<Person>("age", isMemberOf: [Opaque()])
        #expect(fixture.fetchFailure(opaque)?.contains("Where(\"age\", isMemberOf:): The collection contains an Opaque") == true)
    }

    @Test(arguments: StoreKind.allCases)
    func aFailingFormatPoisonsEveryChainAndCombinationItJoins(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        let stack = fixture.stack
        let bad = Where<Person>("age >")
        #expect(fixture.fetchFailure(bad && Where<Person>(true)) != nil)
        #expect(fixture.fetchFailure(Where<Person>(true) || bad) != nil)
        #expect(fixture.fetchFailure(!bad) != nil)
        #expect(throws: CoreStoreError.self) { try stack.fetchAll(From<Person>().where(format: "age >")) }
        #expect(throws: CoreStoreError.self) { try stack.fetchCount(From<Person>().where(\.$age > 1).where(format: "x ==", argumentArray: nil)) }
    }

    @Test(arguments: StoreKind.allCases)
    func nestingDeeperThanTheLimitFailsInsteadOfOverflowingTheStack(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        let depth = PredicateFormatParser.maximumNesting
        let allowed = String(repeating: "(", count: depth) + "age == 25" + String(repeating: ")", count: depth)
        #expect(Where<Person>(allowed).error == nil)
        let tooDeep = String(repeating: "(", count: 10_000) + "age == 25" + String(repeating: ")", count: 10_000)
        #expect(fixture.fetchFailure(Where<Person>(tooDeep))?.contains("more than \(depth) levels deep") == true)
        let manyNots = String(repeating: "NOT ", count: 10_000) + "age == 25"
        #expect(fixture.fetchFailure(Where<Person>(manyNots))?.contains("levels deep at position") == true)
    }
}
