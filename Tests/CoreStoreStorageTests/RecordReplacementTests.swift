import Testing
import CoreStoreStorage

@Suite("Record replacements")
struct RecordReplacementTests {
    /// Read by address inside their array, the new records are exactly the `new` of each
    /// replacement, whatever the records hold.
    @Test func newRecordByAddressIsTheReplacementsNewRecord() {
        let replacements = (1...5).map { i in
            RecordReplacement(
                old: Fixtures.person(Int64(i), "old \(i)", age: Int64(i), pets: []),
                new: Fixtures.person(Int64(i), String(repeating: "new ", count: i), age: Int64(100 + i), pets: [RecordID(entity: "Dog", key: Int64(i))]),
                changedKeys: ["name", "age", "pets"]
            )
        }
        replacements.withUnsafeBufferPointer { buffer in
            for i in buffer.indices {
                let new = RecordReplacement.newRecord(at: buffer.baseAddress! + i)
                #expect(new.pointee == replacements[i].new)
                #expect(new.pointee != replacements[i].old)
            }
        }
    }
}
