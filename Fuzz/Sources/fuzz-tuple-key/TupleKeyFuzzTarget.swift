import CoreStoreStorage
import CoreStoreKeyValue

/// One input: bytes read as a key-value tuple key (an index entry or a record key). Decoding
/// must either throw a `StorageError` or return values whose encoding survives a
/// decode and encode unchanged; any trap, memory error or mismatch is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func tupleKeyFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let values = try? TupleDecoder.decode(bytes) else { return 0 }
    // Encodings are canonical (one NaN, no negative zero): the decoded values must encode to
    // bytes that decode to values encoding to the same bytes. (Comparing values would call two
    // NaN dates different.)
    let encoded = TupleEncoder.encode(values)
    guard let again = try? TupleDecoder.decode(encoded), again.count == values.count else {
        fatalError("decoded values do not survive encoding: \(values)")
    }
    guard TupleEncoder.encode(again) == encoded else {
        fatalError("\(values) encode differently after a round trip: \(again)")
    }
    return 0
}
