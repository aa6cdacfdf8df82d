import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// Index entries built through pointers (numbers, dates, UUIDs) are byte for byte the entries
/// the tuple encoder builds element by element.
@Suite("Index entry encoding")
struct IndexEntryEncodingTests {
    static let fixedWidthValues: [Value] = [
        .null, .bool(false), .bool(true),
        .int(.min), .int(-1), .int(0), .int(1), .int(.max),
        .double(-0.0), .double(0.0), .double(.nan), .double(-.nan), .double(-.infinity), .double(.infinity),
        .double(1.5), .double(-2.25), .double(.leastNonzeroMagnitude), .double(-.greatestFiniteMagnitude),
        .date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: -86_400.5)),
        .date(Date(timeIntervalSinceReferenceDate: 7e8)),
        .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000000")!),
        .uuid(UUID(uuidString: "F0E1D2C3-B4A5-9687-7869-5A4B3C2D1E0F")!),
    ]

    @Test("A fixed-width element is stored as the encoder appends it", arguments: fixedWidthValues)
    func fixedWidthMatchesEncoder(_ value: Value) {
        var expected: [UInt8] = []
        TupleEncoder.encode(value, into: &expected)
        var stored = [UInt8](repeating: 0xAA, count: TupleEncoder.largestFixedWidthElement + 1)
        let written = stored.withUnsafeMutableBytes { TupleEncoder.storeFixedWidth(value, at: $0.baseAddress!) }
        #expect(written == expected.count)
        #expect(Array(stored.prefix(expected.count)) == expected)
        // Nothing past the element is touched.
        #expect(stored[expected.count...].allSatisfy { $0 == 0xAA })
    }

    @Test("Strings, bytes and decimals have no fixed width", arguments: [
        Value.string(""), .string("ab\u{0}c"), .bytes(Data([0, 1, 2])), .decimal(Decimal(string: "12.5")!),
    ])
    func variableWidthIsDeclined(_ value: Value) {
        var stored = [UInt8](repeating: 0xAA, count: TupleEncoder.largestFixedWidthElement)
        let written = stored.withUnsafeMutableBytes { TupleEncoder.storeFixedWidth(value, at: $0.baseAddress!) }
        #expect(written == nil)
        #expect(stored.allSatisfy { $0 == 0xAA })
    }

    @Test("Every plan's entry equals the layout's, appended after what the buffer holds", arguments: [UInt64(0), 258])
    func planEntriesMatchTheLayout(generation: UInt64) {
        let layout = KeyValueLayout(schema: KV.schema, generation: generation)
        var g = SeededGenerator(seed: generation + 11)
        func maybe<T>(_ make: () -> T) -> T? { Bool.random(using: &g) ? make() : nil }
        var records: [Record] = []
        for key in Int64(1)...60 {
            let name = ["", "Ann", "b\u{0}b", "Zoë"][Int.random(in: 0..<4, using: &g)]
            switch key % 3 {
            case 0:
                let age = maybe { Int64.random(in: -5...5, using: &g) }
                let score = maybe { [-0.0, 0.0, .nan, 3.25, -.infinity][Int.random(in: 0..<5, using: &g)] }
                records.append(KV.person(key, name, age: age, email: maybe { "p\(key)@x" }, score: score))
            case 1:
                records.append(KV.pet(key, name, tag: maybe { Int64.random(in: .min ... .max, using: &g) },
                                      owner: maybe { RecordID(entity: "Person", key: Int64.random(in: 1...60, using: &g)) }))
            default:
                records.append(KV.dog(key, name, tag: maybe { key }, breed: maybe { name },
                                      owner: maybe { RecordID(entity: "Person", key: key - 1) }))
            }
        }
        var checked = 0
        for record in records {
            let plans = layout.entryPlans(maintainedBy: record.id.entity)
            #expect(plans.map(\.index) == layout.indexes(maintainedBy: record.id.entity))
            for plan in plans {
                let expected = layout.entry(of: record, in: plan.index)
                #expect(plan.entry(of: record) == expected)
                var buffer: [UInt8] = [7, 7]
                plan.appendEntry(of: record, to: &buffer)
                #expect(buffer == [7, 7] + expected)
                plan.entry(of: record, into: &buffer)
                #expect(buffer == expected)
                checked += 1
            }
        }
        #expect(checked > 100)
    }
}
