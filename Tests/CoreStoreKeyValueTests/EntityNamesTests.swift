import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// `EntityNames` finds a record's entity from the name's bytes: every name of the schema, and
/// only that name, even among names of one length that share most of their bytes.
@Suite("Entity names: finding a record's entity by its bytes")
struct EntityNamesTests {
    /// Names of lengths around the eight-byte steps of the comparison, with look-alikes: the
    /// same length, differing in one byte at the start, the middle or the end.
    static let names = [
        "A", "B", "Item", "Itex", "Seventy", "Eighteen", "Eighteem", "AlphaItem", "OmegaItem",
        "AlphaIten", "SixteenLetters16", "SixteenLetters17", "SeventeenLetters1", "XeventeenLetters1",
    ]

    static let schema = StoreSchema(modelVersion: "V1", schemaHash: "names", entities: names.map {
        EntityDescription(name: $0, attributes: [])
    })

    @Test func everyNameFindsItsOwnIndexAndNoOther() {
        let entityNames = EntityNames(schema: Self.schema)
        for (index, name) in Self.names.enumerated() {
            let bytes = Array(name.utf8)
            bytes.withUnsafeBytes { buffer in
                #expect(entityNames.index(of: buffer) == index, "\(name)")
                for other in Self.names.indices {
                    #expect(entityNames.matches(other, buffer) == (other == index), "\(name) against \(Self.names[other])")
                }
            }
        }
    }

    @Test func aNameTheSchemaLacksIsNotFound() {
        let entityNames = EntityNames(schema: Self.schema)
        for name in ["", "C", "Itez", "Eighteex", "BetaItem1", "SixteenLetters18", "SeventeenLetters2"] {
            Array(name.utf8).withUnsafeBytes { buffer in
                #expect(entityNames.index(of: buffer) == nil, "\(name)")
            }
        }
    }

    /// Every length from 1 to 24 (the byte loop, the two overlapping 4-byte loads, the 8-byte
    /// steps with an overlapping last step), against a name of the same length that differs in
    /// one byte, at every position.
    @Test(arguments: 1...24)
    func aNameDifferingInAnyOneByteIsAnother(length: Int) {
        let name = String((0..<length).map { Character(UnicodeScalar(UInt8(0x41 + $0 % 26))) })
        let schema = StoreSchema(modelVersion: "V1", schemaHash: "one", entities: [EntityDescription(name: name, attributes: [])])
        let entityNames = EntityNames(schema: schema)
        let bytes = Array(name.utf8)
        bytes.withUnsafeBytes { #expect(entityNames.matches(0, $0), "\(name)") }
        for position in 0..<length {
            var other = bytes
            other[position] ^= 0x20
            other.withUnsafeBytes { buffer in
                #expect(!entityNames.matches(0, buffer), "\(name) against byte \(position) changed")
                #expect(entityNames.index(of: buffer) == nil)
            }
        }
        // One byte shorter or longer is never the name.
        Array(bytes.dropLast()).withUnsafeBytes { #expect(!entityNames.matches(0, $0)) }
        (bytes + [0x41]).withUnsafeBytes { #expect(!entityNames.matches(0, $0)) }
    }
}
