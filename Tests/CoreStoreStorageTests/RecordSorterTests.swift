import Foundation
import Testing
import CoreStoreStorage

@Suite("Record sorter and windows")
struct RecordSorterTests {
    let people = [
        Fixtures.person(4, "Bo", age: 30),
        Fixtures.person(2, "Al", age: nil),
        Fixtures.person(3, "Cy", age: 30),
        Fixtures.person(1, "Di", age: 20),
    ]

    func sorted(_ descriptors: [RecordSortDescriptor]) throws -> [String] {
        var records = people
        try RecordSorter(schema: Fixtures.schema, sortDescriptors: descriptors).sort(&records)
        return records.map { if case .string(let s) = $0.attributes[0] { return s } else { return "?" } }
    }

    @Test func ascendingPutsNilFirstAndBreaksTiesByKey() throws {
        #expect(try sorted([RecordSortDescriptor(key: "age", ascending: true)]) == ["Al", "Di", "Cy", "Bo"])
    }

    @Test func descendingPutsNilLast() throws {
        #expect(try sorted([RecordSortDescriptor(key: "age", ascending: false)]) == ["Cy", "Bo", "Di", "Al"])
    }

    @Test func severalKeys() throws {
        #expect(try sorted([RecordSortDescriptor(key: "age", ascending: false), RecordSortDescriptor(key: "name", ascending: false)]) == ["Cy", "Bo", "Di", "Al"])
        #expect(try sorted([RecordSortDescriptor(key: "age", ascending: false), RecordSortDescriptor(key: "name", ascending: true)]) == ["Bo", "Cy", "Di", "Al"])
    }

    @Test func noKeysMeansRecordKeyOrder() throws {
        #expect(try sorted([]) == ["Di", "Al", "Cy", "Bo"])
    }

    @Test func unknownSortKeyThrows() {
        #expect(throws: StorageError.self) { try sorted([RecordSortDescriptor(key: "height", ascending: true)]) }
    }

    @Test(arguments: [
        (0, Int?.none, [1, 2, 3, 4, 5]),
        (2, 2, [3, 4]),
        (4, 10, [5]),
        (9, nil, []),
        (0, 0, []),
        (-3, 2, [1, 2]),
        (1, -1, []),
    ] as [(Int, Int?, [Int])])
    func window(offset: Int, limit: Int?, expected: [Int]) {
        #expect(RecordWindow.apply([1, 2, 3, 4, 5], offset: offset, limit: limit) == expected)
    }

    @Test func completingAPartialResultAppliesTheRemainingStages() throws {
        let request = FetchRequest(
            entity: "Person",
            predicate: .comparison(Comparison("age", .greaterOrEqual, .int(20))),
            sortDescriptors: [RecordSortDescriptor(key: "name", ascending: false)],
            limit: 2
        )
        let result = FetchResult(records: people, pending: .all)
        let names = try result.completed(for: request, schema: Fixtures.schema).map(\.id.key)
        #expect(names == [1, 3])
    }

    @Test func windowBeforeFilterIsRejected() {
        let request = FetchRequest(entity: "Person", predicate: .constant(true), limit: 1)
        let result = FetchResult(records: people, pending: [.filter])
        #expect(throws: StorageError.self) { try result.completed(for: request, schema: Fixtures.schema) }
    }
}
