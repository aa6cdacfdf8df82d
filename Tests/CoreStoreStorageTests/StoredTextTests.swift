import Testing
import CoreStoreStorage

@Suite("Stored text")
struct StoredTextTests {
    /// The layout check passes on this platform, so the small-string path is the one taken
    /// (were it to fail, every string would take the standard library's path, still correct).
    @Test func smallStringLayoutIsTheExpectedOne() {
        #expect(StoredText.smallStringLayoutHolds)
    }

    /// ASCII text of every length around the small-string limit and the eight-byte loads reads
    /// back as the same string the standard library makes: equal, with the same bytes, count
    /// and hash, usable as a dictionary key and joined with other strings.
    @Test(arguments: Array(0...40))
    func asciiTextOfEveryLength(length: Int) {
        let expected = String((0..<length).map { Character(Unicode.Scalar(UInt8(0x20 + ($0 * 7) % 0x5F))) })
        let bytes = Array(expected.utf8)
        let (validated, repaired) = bytes.withUnsafeBytes { (StoredText.validated($0), StoredText.repaired($0)) }
        for text in [validated, repaired] {
            #expect(text == expected)
            #expect(text.map { Array($0.utf8) } == bytes)
            #expect(text?.count == length)
            #expect(text?.hashValue == expected.hashValue)
            #expect([expected: 1][text ?? "-"] == 1)
            #expect((text ?? "") + "!" == expected + "!")
        }
    }

    /// Every ASCII byte, control characters and NUL included, at every position of a short
    /// string, makes the string the standard library makes of the same bytes.
    @Test(arguments: [1, 2, 7, 8, 9, 15])
    func everyASCIIByteAtEveryPosition(length: Int) {
        for byte in UInt8(0)...0x7F {
            for position in 0..<length {
                var bytes = Array(repeating: UInt8(ascii: "x"), count: length)
                bytes[position] = byte
                let expected = String(decoding: bytes, as: UTF8.self)
                let text = bytes.withUnsafeBytes { StoredText.validated($0) }
                #expect(text == expected)
                #expect(text.map { Array($0.utf8) } == bytes)
            }
        }
    }

    /// Bytes only up to the buffer's end are read: the same bytes inside a larger buffer, with
    /// other bytes after them, make the same strings.
    @Test(arguments: [1, 3, 4, 7, 8, 9, 15, 16])
    func readsNothingPastTheBytes(length: Int) {
        let buffer = Array("abcdefghijklmnop".utf8) + Array(repeating: 0xFF, count: 16)
        let text = buffer.withUnsafeBytes { StoredText.validated(UnsafeRawBufferPointer(rebasing: $0[..<length])) }
        #expect(text == String(decoding: buffer[..<length], as: UTF8.self))
    }

    /// Valid UTF-8 that is not ASCII, short and long, reads back unchanged.
    @Test(arguments: ["é", "naïve", "日本語のテキスト", "emoji 🎉 in a longer sentence", "ascii then ü"])
    func unicodeText(text: String) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { StoredText.validated($0) } == text)
        #expect(bytes.withUnsafeBytes { StoredText.repaired($0) } == text)
    }

    /// Invalid UTF-8 (a lone continuation byte, a truncated sequence, an overlong encoding) is
    /// refused by `validated` and replaced by `repaired`, as `String(decoding:as:)` replaces it.
    @Test(arguments: [[0x80], [0x61, 0xC3], [0xC0, 0xAF], [0x61, 0x62, 0xFF, 0x63], Array(repeating: 0x61, count: 20) + [0xE2, 0x82]] as [[UInt8]])
    func invalidUTF8(bytes: [UInt8]) {
        #expect(bytes.withUnsafeBytes { StoredText.validated($0) } == nil)
        #expect(bytes.withUnsafeBytes { StoredText.repaired($0) } == String(decoding: bytes, as: UTF8.self))
    }
}
