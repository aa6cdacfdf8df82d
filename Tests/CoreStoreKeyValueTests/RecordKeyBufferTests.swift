import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// The reused key buffer builds the same bytes as the layout's own record keys, whatever the
/// order of entities and keys it is asked for.
@Suite("Record key buffer")
struct RecordKeyBufferTests {
    @Test("Each key equals the layout's, across entity changes and extreme keys")
    func matchesLayout() {
        let layout = KeyValueLayout(schema: KV.schema)
        let requests: [(String, Int64)] = [
            ("Person", 0), ("Person", 1), ("Person", .max), ("Pet", -1), ("Dog", .min),
            ("Dog", 7), ("Pet", 7), ("Person", 7), ("Person", 300), ("Dog", 1 << 40),
        ]
        var buffer = RecordKeyBuffer(layout: layout)
        for (entity, key) in requests {
            buffer.set(entity: entity, key: key)
            #expect(buffer.bytes == layout.recordKey(entity: entity, key: key), "\(entity) \(key)")
        }
    }
}
