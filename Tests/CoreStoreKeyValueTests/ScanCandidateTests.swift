import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// `ScanCandidate`: the record a fetch takes is the record the bytes hold, whether or not a
/// predicate decoded it first, and taking it leaves nothing behind for the next record.
@Suite("ScanCandidate: records handed over to a fetch")
struct ScanCandidateTests {
    @Test("takeRecord() equals the decoded record, fresh or after record(), across consecutive records",
          arguments: [false, true])
    func takenRecordsMatch(_ decodesFirst: Bool) throws {
        let records = (0..<6 as Range<UInt64>).map { RecordFieldsTests.record(seed: $0) }
        let candidate = ScanCandidate(names: RecordFieldsTests.names, checksChecksums: true)
        var taken: [Record] = []
        for record in records {
            let bytes = RecordCodec.encode(record)
            try bytes.withUnsafeBytes { buffer in
                _ = try candidate.reset(buffer)
                if decodesFirst { #expect(try candidate.record() == record) }
                taken.append(try candidate.takeRecord())
                // Asked again for the same bytes, the candidate decodes them again.
                #expect(try candidate.record() == record)
            }
        }
        #expect(taken == records)
    }

    @Test("takeRecord() throws for damaged bytes instead of handing over a record")
    func damagedBytesThrow() {
        let record = RecordFieldsTests.record(seed: 3)
        var bytes = RecordCodec.encode(record)
        bytes[bytes.count - 1] ^= 0xFF
        let candidate = ScanCandidate(names: RecordFieldsTests.names, checksChecksums: true)
        #expect(throws: (any Error).self) {
            try bytes.withUnsafeBytes { buffer in
                _ = try candidate.reset(buffer)
                _ = try candidate.takeRecord()
            }
        }
    }
}
