import CoreStoreStorage
@testable import CoreStoreKeyValue

/// The schema whose entity names the in-place reader matches: the fuzzer finds their bytes in
/// the seed corpus.
private let names = EntityNames(schema: StoreSchema(modelVersion: "Fuzz", schemaHash: "", entities: []))

/// One input: bytes read as a stored record, the way a fetch meets them, and — when they begin
/// like a record of the current format — the same bytes with a matching checksum in their last
/// four bytes, so that the fuzzer reaches the parser behind the checksum. Decoding must either
/// throw a `StorageError` or return a record whose encoding survives a decode and encode
/// unchanged; reading single attributes in place must agree with the decoded record. Any trap,
/// memory error or mismatch is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func recordCodecFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    check(bytes)
    if bytes.first == RecordCodec.formatVersion, bytes.count > RecordCodec.checksumSize {
        var resealed = Array(bytes.dropLast(RecordCodec.checksumSize))
        let checksum = resealed.withUnsafeBytes { CRC32C.checksum($0) }
        withUnsafeBytes(of: checksum.littleEndian) { resealed.append(contentsOf: $0) }
        check(resealed)
    }
    return 0
}

private func check(_ bytes: [UInt8]) {
    let decoded = try? RecordCodec.decode(bytes)
    if let decoded {
        // Stored bytes need not be canonical (a varint with redundant continuation bytes, a
        // decimal spelled another way), but what a decoded record encodes to must decode and
        // encode to the same bytes. (Comparing records would call two NaN dates different.)
        let encoded = RecordCodec.encode(decoded)
        guard let again = try? RecordCodec.decode(encoded), RecordCodec.encode(again) == encoded else {
            fatalError("a decoded record does not survive encoding: \(decoded)")
        }
    }
    _ = try? RecordCodec.recordID(bytes)
    let fields = RecordFields(checksChecksums: true)
    bytes.withUnsafeBytes { buffer in
        guard (try? fields.loadHeader(buffer, names: names)) != nil else { return }
        // Every attribute read in place, forwards then one past the end.
        var ordinal = 0
        while ordinal < 64, let value = try? fields.attribute(ordinal) {
            if let decoded, ordinal < decoded.attributes.count, Value.storageOrder(value, decoded.attributes[ordinal]) != 0,
               !(value == decoded.attributes[ordinal]) {
                fatalError("attribute \(ordinal) read in place is \(value), decoded \(decoded.attributes[ordinal])")
            }
            ordinal += 1
        }
        _ = try? fields.record(names: names)
    }
}
