import Foundation
import CoreStoreStorage

/// Opening for reading (``ReadOnlyOpening``), as the store tools open what they inspect, dump,
/// check or copy from: nothing created, nothing written, the data as stored.
extension LifecycleCases {
    static func readOnly(_ name: String, _ body: @escaping @Sendable (ConformanceContext) throws -> Void) -> ConformanceCase {
        ConformanceCase(name, group: "lifecycle", requires: .persistent, adopts: [.readOnlyOpening], body: body)
    }

    /// A new instance over the data of `store` (closed first), as a ``ReadOnlyOpening``.
    static func readingInstance(_ ctx: ConformanceContext, over store: any StorageInterface) throws -> any ReadOnlyOpening {
        try ctx.unwrap(try ctx.instance(over: store) as? any ReadOnlyOpening, "a reopened \(ctx.factory.name) adopting ReadOnlyOpening")
    }

    static func isInvalidRequest(_ error: StorageError) -> Bool {
        if case .invalidRequest = error { return true }
        return false
    }

    static let readOnlyCases: [ConformanceCase] = [
        readOnly("a store opened for reading returns its metadata and reads what was written") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            let reader = try readingInstance(ctx, over: store)
            let metadata = try reader.openForReading(schema: Fixtures.schema)
            try ctx.expectEqual(metadata.schemaHash, Fixtures.schema.schemaHash, "schemaHash returned by openForReading")
            try ctx.expectSameFetch(reader, world, FetchRequest(entity: "Person"))
            try ctx.expectSameFetch(reader, world, FetchRequest(entity: "Pet", sortDescriptors: [RecordSortDescriptor(key: "name", ascending: true)]))
        },
        readOnly("a store opened for reading refuses writes and erase, and keeps its data") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            let reader = try readingInstance(ctx, over: store)
            _ = try reader.openForReading(schema: Fixtures.schema)
            try ctx.expectError("a write to a store opened for reading", matching: isInvalidRequest) {
                _ = try reader.write(ChangeSet(inserts: [Fixtures.person(-1, "Zed")]))
            }
            try ctx.expectError("a metadata write to a store opened for reading", matching: isInvalidRequest) {
                _ = try reader.write(ChangeSet(metadata: StoredMetadata(modelVersion: "V9", schemaHash: "other", userInfo: [:])))
            }
            try ctx.expectError("erase of a store opened for reading", matching: isInvalidRequest) { try reader.erase() }
            try ctx.expectSameFetch(reader, world, FetchRequest(entity: "Person"))
            let (reopened, metadata) = try ctx.reopen(reader)
            try ctx.expectEqual(metadata?.schemaHash, Fixtures.schema.schemaHash, "schemaHash after the refused writes")
            try ctx.expectSameFetch(reopened, world, FetchRequest(entity: "Person"))
        },
        readOnly("opening a new store for reading throws incompatibleStore and creates nothing") { ctx in
            let store = try ctx.newStore()
            let location = ctx.capabilities.contains(.localFiles) ? ctx.factory.location(of: store) : nil
            let reader = try ctx.unwrap(store as? any ReadOnlyOpening, "a new \(ctx.factory.name) adopting ReadOnlyOpening")
            try ctx.expectError("openForReading of a new store", matching: FileCases.isIncompatibleStore) {
                _ = try reader.openForReading(schema: Fixtures.schema)
            }
            if let location {
                try ctx.expect(!FileManager.default.fileExists(atPath: location.path), "openForReading of a new store created \(location.path)")
            }
            try ctx.expect(try store.open(schema: Fixtures.schema) == nil, "open(schema:) after a refused openForReading did not see a new store")
        },
        readOnly("opening for reading with another schema returns the stored metadata and leaves the store closed") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            let reader = try readingInstance(ctx, over: store)
            let metadata = try reader.openForReading(schema: Fixtures.otherSchema)
            try ctx.expectEqual(metadata.schemaHash, Fixtures.schema.schemaHash, "schemaHash returned for another schema")
            try ctx.expectError("a read after openForReading with another schema", matching: isNotOpen) {
                _ = try reader.read { try $0.fetch(FetchRequest(entity: "Person")) }
            }
        },
    ]
}
