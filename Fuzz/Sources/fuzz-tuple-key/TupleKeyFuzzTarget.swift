import CoreStoreStorage
import CoreStoreKeyValue

/// One input: bytes read as a key-value tuple key (an index entry or a record key). Decoding
/// must either throw a `StorageError` or return values that encode and decode back to
/// themselves; any trap, memory error or mismatch is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func tupleKeyFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let values = try? TupleDecoder.decode(bytes) else { return 0 }
    let encoded = TupleEncoder.encode(values)
    guard let again = try? TupleDecoder.decode(encoded), again.count == values.count else {
        fatalError("decoded values do not survive encoding: \(values)")
    }
    for (a, b) in zip(values, again) where !(a == b) {
        fatalError("value \(a) comes back as \(b)")
    }
    return 0
}
