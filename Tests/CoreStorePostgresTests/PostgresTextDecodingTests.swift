import Foundation
import Testing
@testable import CoreStorePostgres

/// The fast paths that read integers, doubles and `bytea` strings straight from libpq's text
/// results must read exactly what the string-based parsers read, and refuse what they refuse.
@Suite("PostgreSQL text results read in place")
struct PostgresTextDecodingTests {
    static func int64(_ text: String) -> Int64? {
        Array(text.utf8).withUnsafeBytes { PostgresRow.int64($0) }
    }

    static func double(_ text: String) -> Double? {
        text.withCString { PostgresRow.double($0, length: Int32(strlen($0))) }
    }

    static func byteaString(_ text: String) -> String? {
        Array(text.utf8).withUnsafeBytes { PostgresRow.byteaString($0) }
    }

    @Test(arguments: ["0", "7", "-7", "42", "9223372036854775807", "-9223372036854775808", "1000000000000000000"])
    func integersReadAsInt64Does(text: String) {
        #expect(Self.int64(text) == Int64(text))
    }

    @Test(arguments: ["", "-", "9223372036854775808", "-9223372036854775809", "12345678901234567890", "1.5", "1e3", " 1", "1a", "--1"])
    func nonIntegersAndOverflowsAreRefused(text: String) {
        #expect(Self.int64(text) == nil)
    }

    @Test(arguments: ["0", "-0", "1.5", "-2.25", "0.1", "1e+300", "4.9406564584124654e-324", "1.7976931348623157e+308", "Infinity", "-Infinity", "123456.78901234567"])
    func doublesReadAsDoubleDoes(text: String) throws {
        let parsed = try #require(Self.double(text))
        let reference = try #require(Double(text))
        #expect(parsed.bitPattern == reference.bitPattern)
    }

    @Test func nanIsRead() throws {
        #expect(try #require(Self.double("NaN")).isNaN)
    }

    @Test(arguments: ["", "1.5x", "abc", "1.5 ", " 1.5", "\t1"])
    func nonDoublesAreRefused(text: String) {
        #expect(Self.double(text) == nil)
    }

    @Test func byteaStringsDecodeTheirUTF8() {
        #expect(Self.byteaString("\\x") == "")
        #expect(Self.byteaString("\\x416e6e") == "Ann")
        #expect(Self.byteaString("\\x5a6fc3ab") == "Zoë")
        #expect(Self.byteaString("\\x43790079") == "Cy\u{0}y")
        let long = String(repeating: "long text ", count: 20)
        let hex = "\\x" + long.utf8.map { String(format: "%02x", $0) }.joined()
        #expect(Self.byteaString(hex) == long)
    }

    @Test func invalidUTF8IsRepairedAsStringDecodingDoes() {
        #expect(Self.byteaString("\\x41ff42") == String(decoding: [0x41, 0xFF, 0x42], as: UTF8.self))
    }

    @Test(arguments: ["", "x41", "\\x4", "\\x4g", "\\y41"])
    func nonByteaTextsAreRefused(text: String) {
        #expect(Self.byteaString(text) == nil)
    }
}
