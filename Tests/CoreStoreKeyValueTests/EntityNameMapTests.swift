import Testing
@testable import CoreStoreKeyValue

/// `EntityNameMap` answers like the dictionary it was made from, whether it compares names (few
/// entities) or hashes them (many), and for names spelled by other strings than its own.
@Suite("Entity name map")
struct EntityNameMapTests {
    @Test(arguments: [0, 1, EntityNameMap<Int>.scanLimit, EntityNameMap<Int>.scanLimit + 1, 40])
    func answersLikeItsDictionary(count: Int) {
        let dictionary = Dictionary(uniqueKeysWithValues: (0..<count).map { ("Entity\($0)", $0 * 7) })
        let map = EntityNameMap(dictionary)
        for (name, value) in dictionary {
            #expect(map[name] == value)
            // The same name built anew: another string with the same characters.
            #expect(map[String(name.utf8.map { Character(UnicodeScalar($0)) })] == value)
        }
        for missing in ["", "Entity", "entity0", "Entity\(count)", "Entity0 "] {
            #expect(map[missing] == nil, "\(missing)")
        }
    }
}
