import Foundation
import Testing
import CoreStoreSQL
import CoreStoreStorage
@testable import CoreStorePostgres

/// PostgreSQL adds a group's doubles with a plain `sum()` when its test says no addition can
/// round (``SQLOrderFreeDoubleSum``), and in key order (`sum(… ORDER BY key)`, a sort) otherwise.
/// The test runs on a real server, on values stored out of key order.
@Suite("PostgreSQL sums of doubles in any order when exact", .serialized)
struct PostgresOrderFreeSumTests {
    /// Values in key order, and whether the test must say that any order gives their total.
    static let cases: [(label: String, values: [Double?], exact: Bool)] = [
        ("binary fractions", [0.5, 0.25, 1024, -3.75, 0x1p-16, 999.9990234375], true),
        ("whole numbers", [1, 2, -3, 1e6, -0.0], true),
        ("no values", [], true),
        ("nulls only", [nil, nil], true),
        ("nulls and fractions", [nil, 0.75, nil, -0.125], true),
        ("magnitudes just below 2^37", [0x1p36, 0x1p36 - 0x1p-16], true),
        ("decimal fractions", [0.1, 0.2, 0.3], false),
        ("a finer binary fraction", [1, 0x1p-17], false),
        ("magnitudes adding up to 2^37", [0x1p36, 0x1p36], false),
        // In key order 2^37 + 2^-16 rounds back to 2^37 (twice): the total is 0, where adding
        // the small values first gives 2^-15.
        ("a total that rounds by order", [0x1p37, 0x1p-16, 0x1p-16, -0x1p37], false),
        ("whole numbers beyond 2^37", [0x1p53, 1, -0x1p53], false),
        ("NaN", [1, .nan], false),
        ("an infinity", [.infinity, 1], false),
    ]

    @Test(arguments: cases.indices)
    func theTestSaysWhenTheOrderCannotMatter(caseIndex: Int) throws {
        let (label, values, exact) = Self.cases[caseIndex]
        let url = try PostgresTestServer.requireURL()
        let connection = try PostgresConnection(connectionString: url, location: "test")
        let table = "order_free_sum_\(UInt32.random(in: 0...UInt32.max))"
        try connection.execute("CREATE TEMPORARY TABLE \(table) (\"_key\" BIGINT PRIMARY KEY, x DOUBLE PRECISION)")
        // Stored in reverse key order, so that a scan meets them last key first.
        for (key, value) in values.enumerated().reversed() {
            try connection.statement("INSERT INTO \(table) VALUES ($1, $2)").execute([.integer(Int64(key)), value.map(SQLValue.real) ?? .null])
        }
        let dialect = PostgresDialect()
        let orderFree = try #require(dialect.orderFreeDoubleAggregate(average: false, column: "x"))
        let keyOrdered = try #require(dialect.exactDoubleAggregate(average: false, key: "\"_key\"", column: "x"))
        var flag: Int64?
        var anyOrderTotal: Value = .null
        var keyOrderTotal: Value = .null
        let isFinite = values.allSatisfy { $0?.isFinite ?? true }
        // A NaN or an infinity is in the test only: the sums would fail or give NaN.
        let terms = isFinite ? "\(orderFree.isExact), \(orderFree.call), \(keyOrdered)" : orderFree.isExact
        try connection.statement("SELECT \(terms) FROM \(table)").query([], binaryResults: true) { row in
            flag = row.integer(0)
            if isFinite {
                anyOrderTotal = try row.value(1, as: .double)
                keyOrderTotal = try row.value(2, as: .double)
            }
        }
        #expect(flag == (exact ? 1 : 0), "\(label)")
        guard isFinite else { return }
        var reference = AggregateAccumulator(.sum, of: .double)
        for value in values { reference.add(value.map(Value.double) ?? .null) }
        let expected = try reference.result(for: "x")
        #expect(keyOrderTotal.storageBits == expected.storageBits, "\(label): the key-ordered total is the reference")
        if exact {
            #expect(anyOrderTotal.storageBits == expected.storageBits, "\(label): the total in any order is the reference")
        }
    }
}

private extension Value {
    /// The double's bits (the sign of a zero included), or `nil` for anything else.
    var storageBits: UInt64? {
        if case .double(let d) = self { return d.bitPattern }
        return nil
    }
}

/// The store's memory of double attributes whose sums failed the order-free test.
@Suite("Memory of sums that add in key order")
struct SQLOrderedSumMemoryTests {
    @Test func aFailedAttributeAddsInKeyOrderForItsRunsThenTriesAnyOrderAgain() {
        let memory = SQLOrderedSumMemory()
        #expect(!memory.addsInKeyOrder("Item", ["price"]))
        memory.noteFailedTest("Item", ["price"])
        for _ in 0..<SQLOrderedSumMemory.keyOrderedRuns {
            #expect(memory.addsInKeyOrder("Item", ["price"]))
            // Other attributes, and the same name in another entity, are not remembered.
            #expect(!memory.addsInKeyOrder("Item", ["weight"]))
            #expect(!memory.addsInKeyOrder("Crate", ["price"]))
        }
        #expect(!memory.addsInKeyOrder("Item", ["price"]))
        // An aggregate of several attributes adds in key order when one of them is remembered.
        memory.noteFailedTest("Item", ["weight"])
        #expect(memory.addsInKeyOrder("Item", ["price", "weight"]))
        #expect(!memory.addsInKeyOrder("Item", []))
    }

    @Test func aFullMemoryStartsOver() {
        let memory = SQLOrderedSumMemory()
        for i in 0..<SQLOrderedSumMemory.capacity { memory.noteFailedTest("Item", ["a\(i)"]) }
        #expect(memory.addsInKeyOrder("Item", ["a0"]))
        memory.noteFailedTest("Item", ["b"])
        #expect(!memory.addsInKeyOrder("Item", ["a1"]))
        #expect(memory.addsInKeyOrder("Item", ["b"]))
    }
}
