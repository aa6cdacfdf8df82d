import Foundation
import Testing
@testable import CoreStore

/// A small deterministic generator (SplitMix64), so every run tries the same cases.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (`bound` > 0).
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// True with probability `percent`/100.
    mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }

    mutating func pick<T>(_ choices: [T]) -> T {
        choices[below(choices.count)]
    }
}

/// Builds format strings that are mostly valid, then damages some of them.
struct FormatFuzzer {
    var random: SplitMix64
    /// Arguments a specifier may receive (values, collections, objects, junk).
    let argumentPool: [Any?]

    static let keyPaths = ["name", "age", "nickname", "mood", "pets.name", "pets.@count", "pets", "master.name", "#name", "%K", "agee"]
    static let operators = ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "BETWEEN", "IN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "like", "In"]
    static let modifiers = ["", "", "", "[c]", "[d]", "[cd]", "[CD]", "[x]"]
    static let operands = [
        "'Ann'", "\"Bob\"", "'É*'", "'?ve'", "'[A-D].*'", "'('", "'O\\'Neil'", "'100%%'", "'%@'", "25", "-7", "2.5", "1e3",
        "TRUE", "NO", "nil", "NULL", "%@", "%d", "%f", "%s", "%u", "{19, 60}", "{'Ann', %@}", "{}", "{1}", "%K",
    ]
    static let alphabet = Array("abzAZ0129 _.,'\"%@#$[](){}<>=!&|*?\\-+éÉ😀\tKdf")
    static let connectives = ["AND", "OR", "&&", "||", "and", "or"]

    /// A format and the arguments its specifiers consume.
    mutating func makeCase() -> (format: String, arguments: [Any?]) {
        if random.chance(8) {
            let length = random.below(24)
            return (String((0..<length).map { _ in random.pick(Self.alphabet) }), (0..<random.below(3)).map { _ in random.pick(argumentPool) })
        }
        var tokens = expression(depth: 0)
        let mutations = random.chance(50) ? 0 : 1 + random.below(3)
        for _ in 0..<mutations { mutate(&tokens) }
        var format = tokens.joined(separator: random.chance(80) ? " " : "")
        if random.chance(20) { format = mutateCharacters(format) }
        let specifiers = countSpecifiers(format)
        var arguments: [Any?] = (0..<specifiers).map { _ in random.pick(argumentPool) }
        if random.chance(5) { arguments.append(random.pick(argumentPool)) }
        if random.chance(5), !arguments.isEmpty { arguments.removeLast() }
        return (format, arguments)
    }

    private mutating func expression(depth: Int) -> [String] {
        var tokens = term(depth: depth)
        while random.chance(depth == 0 ? 40 : 20) {
            tokens.append(random.pick(Self.connectives))
            tokens += term(depth: depth)
        }
        return tokens
    }

    private mutating func term(depth: Int) -> [String] {
        switch random.below(10) {
        case 0 where depth < 3: return ["("] + expression(depth: depth + 1) + [")"]
        case 1 where depth < 3: return [random.pick(["NOT", "!", "not"])] + term(depth: depth + 1)
        case 2: return [random.pick(["TRUEPREDICATE", "FALSEPREDICATE"])]
        default: return comparison()
        }
    }

    private mutating func comparison() -> [String] {
        var tokens: [String] = []
        if random.chance(15) { tokens.append(random.pick(["ANY", "ALL", "NONE", "SOME"])) }
        let keyPath = random.pick(Self.keyPaths)
        let op = random.pick(Self.operators) + random.pick(Self.modifiers)
        let operand = random.pick(Self.operands)
        if random.chance(10) {
            tokens += [operand, op, keyPath]
        } else {
            tokens += [keyPath, op, operand]
        }
        return tokens
    }

    private mutating func mutate(_ tokens: inout [String]) {
        guard !tokens.isEmpty else { return }
        let index = random.below(tokens.count)
        switch random.below(5) {
        case 0: tokens.remove(at: index)
        case 1: tokens.insert(tokens[index], at: index)
        case 2: tokens.swapAt(index, random.below(tokens.count))
        case 3: tokens[index] = random.pick(Self.operators + Self.operands + Self.connectives + ["(", ")", "@count", "."])
        default: tokens.insert(random.pick(Self.keyPaths), at: index)
        }
    }

    private mutating func mutateCharacters(_ format: String) -> String {
        var characters = Array(format)
        for _ in 0..<(1 + random.below(3)) {
            let index = characters.isEmpty ? 0 : random.below(characters.count)
            switch random.below(3) {
            case 0 where !characters.isEmpty: characters.remove(at: index)
            case 1 where characters.count > 1: characters.swapAt(index, random.below(characters.count))
            default: characters.insert(random.pick(Self.alphabet), at: index)
            }
        }
        return String(characters)
    }

    /// How many arguments the format consumes, ignoring quotes (a wrong guess only tests the
    /// argument-count error).
    private func countSpecifiers(_ format: String) -> Int {
        var count = 0
        var characters = format.makeIterator()
        while let c = characters.next() {
            guard c == "%" else { continue }
            switch characters.next() {
            case "%"?, nil: continue
            default: count += 1
            }
        }
        return count
    }
}

@Suite("Format predicates: fuzzing")
struct FormatPredicateFuzzTests {
    @Test(arguments: StoreKind.allCases)
    func randomAndDamagedFormatsNeverCrashAndFailOnlyWithCoreStoreErrors(_ kind: StoreKind) throws {
        let stack = try makeFormatFixtureStack(kind)
        let ann = try #require(try stack.fetchOne(From<Person>().where(\.$name == "Ann")))
        let rex = try #require(try stack.fetchOne(From<Dog>().where(\.$name == "Rex")))
        let pool: [Any?] = [
            25, "Ann", "name", "pets.@count", "a..b", 2.5, nil, [19, 60], Set(["Ann"]), Mood.happy, UUID(), Date(),
            true, Int8(3), UInt64.max, ann, rex, rex.cs_id(), [ann], NSNull(), NSNumber(value: 3), [[1]], Decimal(1),
        ]
        var fuzzer = FormatFuzzer(random: SplitMix64(seed: 0xC0DE_5702E), argumentPool: pool)
        var succeeded = 0
        var rejectedByParser = 0
        var rejectedByFetch = 0
        for _ in 0..<5000 {
            let (format, arguments) = fuzzer.makeCase()
            let clause = Where<Person>(format, argumentArray: arguments)
            if case .invalidPredicate(let message)? = clause.error {
                #expect(message.contains(" in \"") && (message.contains("at position") || message.contains("Wrong number") || message.contains("is empty")), "\(message)")
            } else if let error = clause.error {
                Issue.record("unexpected error kind for \(format): \(error)")
            }
            do {
                _ = try stack.fetchAll(From<Person>(), clause)
                #expect(clause.error == nil)
                succeeded += 1
            } catch let error as CoreStoreError {
                guard case .invalidPredicate = error else {
                    Issue.record("\(format) failed with \(error), not invalidPredicate")
                    continue
                }
                if clause.error == nil { rejectedByFetch += 1 } else { rejectedByParser += 1 }
            } catch {
                Issue.record("\(format) threw a non-CoreStoreError: \(error)")
            }
        }
        #expect(succeeded > 300, "the generator should produce many valid formats (\(succeeded))")
        #expect(rejectedByParser > 300, "and many malformed ones (\(rejectedByParser))")
        #expect(rejectedByFetch > 30, "and some the fetch rejects, such as unknown keys (\(rejectedByFetch))")
    }
}
