import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStorePostgres

/// The shared SQL layer reads PostgreSQL results in the binary format: each value must read
/// exactly as the same value sent in the text format does, checked against a real server.
@Suite("PostgreSQL binary results read as text results do", .serialized)
struct PostgresBinaryResultTests {
    /// Selects `expression` once in each format and returns what `read` makes of the column.
    static func both<T>(_ expression: String, _ read: (PostgresRow) throws -> T) throws -> (text: T, binary: T) {
        let connection = try PostgresConnection(connectionString: try PostgresTestServer.requireURL(), location: "test")
        let statement = try connection.statement("SELECT \(expression)")
        var text: T?, binary: T?
        try statement.query([], binaryResults: false) { text = try read($0) }
        try statement.query([], binaryResults: true) { binary = try read($0) }
        return (try #require(text), try #require(binary))
    }

    static let numerics = [
        "0", "1", "-1", "9999", "10000", "-10000", "123456789", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "18446744073709551615", "-99999999999999999999999", "0.5", "-0.0001", "0.00001234",
        "12345.678900", "1e-20", "100000000.00000001", "3.14159265358979323846", "'NaN'", "'Infinity'", "'-Infinity'",
        "1.000", "20000", "0.0000",
    ]

    @Test(arguments: numerics)
    func numericsPrintAsTheServerDoes(literal: String) throws {
        let (text, binary) = try Self.both("CAST(\(literal) AS numeric)") { $0.text(0) }
        #expect(binary == text)
    }

    @Test(arguments: numerics)
    func numericsReadAsEveryNumberType(literal: String) throws {
        for type in [AttributeType.integer, .decimal, .double, .bool] {
            let read = try Self.both("CAST(\(literal) AS numeric)") { row in Result { try row.value(0, as: type) } }
            switch (read.text, read.binary) {
            case (.success(let text), .success(let binary)):
                if case .double(let t) = text, case .double(let b) = binary, t.isNaN { #expect(b.isNaN); continue }
                #expect(binary == text, "\(literal) as \(type)")
            case (.failure, .failure):
                continue
            default:
                Issue.record("\(literal) as \(type): text \(read.text), binary \(read.binary)")
            }
        }
    }

    @Test(arguments: ["0", "-0", "1.5", "-2.25", "0.1", "1e300", "4.9406564584124654e-324", "'NaN'", "'Infinity'", "'-Infinity'"])
    func doublesReadTheSame(literal: String) throws {
        let (text, binary) = try Self.both("CAST(\(literal) AS float8)") { try $0.value(0, as: .double) }
        guard case .double(let t) = text, case .double(let b) = binary else {
            Issue.record("\(text) \(binary)")
            return
        }
        #expect(t.bitPattern == b.bitPattern || (t.isNaN && b.isNaN))
    }

    static let keyLists: [(expression: String, keys: [Int64])] = [
        ("ARRAY[]::bigint[]", []),
        ("NULL::bigint[]", []),
        ("ARRAY[7]::bigint[]", [7]),
        ("ARRAY[1, -2, 9223372036854775807, -9223372036854775808]::bigint[]", [1, -2, .max, .min]),
        ("(SELECT array_agg(n) FROM generate_series(1::bigint, 2000) AS n)", Array(1...2000)),
    ]

    @Test(arguments: keyLists)
    func keyListsReadTheSame(expression: String, keys: [Int64]) throws {
        let (text, binary) = try Self.both(expression) { try $0.int64List(0) }
        #expect(text == keys)
        #expect(binary == keys)
    }

    @Test(arguments: ["ARRAY[1, NULL]::bigint[]", "ARRAY[[1, 2], [3, 4]]::bigint[]", "'not a list'::text"])
    func otherValuesAreNoKeyLists(expression: String) throws {
        let (text, binary) = try Self.both(expression) { row in Result { try row.int64List(0) } }
        #expect(throws: StorageError.self) { try text.get() }
        #expect(throws: StorageError.self) { try binary.get() }
    }

    @Test func integersTextsAndBytesReadTheSame() throws {
        #expect(try Self.both("CAST(42 AS int8)") { $0.integer(0) } == (42, 42))
        #expect(try Self.both("CAST(-7 AS int4)") { $0.integer(0) } == (-7, -7))
        #expect(try Self.both("CAST(3 AS smallint)") { try $0.value(0, as: .bool) } == (.bool(true), .bool(true)))
        #expect(try Self.both("count(*) FROM generate_series(1, 5)") { $0.int64(0) } == (5, 5))
        #expect(try Self.both("CAST('Zoë' AS text)") { $0.text(0) } == ("Zoë", "Zoë"))
        #expect(try Self.both("CAST('Item' AS text)") { $0.textEquals(0, "Item") } == (true, true))
        #expect(try Self.both("CAST('\\x5a6fc3ab00' AS bytea)") { try $0.value(0, as: .string) } == (.string("Zo\u{EB}\u{0}"), .string("Zo\u{EB}\u{0}")))
        #expect(try Self.both("CAST('\\x0102ff' AS bytea)") { try $0.value(0, as: .bytes) } == (.bytes(Data([1, 2, 255])), .bytes(Data([1, 2, 255]))))
        #expect(try Self.both("CAST(NULL AS numeric)") { try $0.value(0, as: .integer) } == (.null, .null))
    }
}
