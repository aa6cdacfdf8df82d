import Foundation
import CoreStoreStorage

/// Opening, closing, reopening, erasing and metadata (requirement 1 and 7).
enum LifecycleCases {
    static func c(_ name: String, requires: StorageCapabilities = [], _ body: @escaping @Sendable (ConformanceContext) throws -> Void) -> ConformanceCase {
        ConformanceCase(name, group: "lifecycle", requires: requires, body: body)
    }

    static let all: [ConformanceCase] = [
        c("a new store opens with nil metadata") { ctx in
            let store = try ctx.newStore()
            try ctx.expect(try store.open(schema: Fixtures.schema) == nil, "open(schema:) of a new store did not return nil")
        },
        c("opening an open store returns its metadata") { ctx in
            let store = try ctx.openStore()
            let metadata = try store.open(schema: Fixtures.schema)
            try ctx.expectEqual(metadata?.schemaHash, Fixtures.schema.schemaHash, "schemaHash of the second open")
            try ctx.expectEqual(metadata?.modelVersion, Fixtures.schema.modelVersion, "modelVersion of the second open")
        },
        c("opening an open store changes nothing") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            _ = try store.open(schema: Fixtures.schema)
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Person"))
        },
        c("metadata written with a change set is returned by open") { ctx in
            let store = try ctx.openStore()
            let metadata = StoredMetadata(modelVersion: "V1", schemaHash: Fixtures.schema.schemaHash, userInfo: ["k": "v", "é": ""])
            _ = try store.write(ChangeSet(metadata: metadata))
            try ctx.expectEqual(try store.open(schema: Fixtures.schema), metadata, "metadata after the write")
        },
        c("read before open throws notOpen") { ctx in
            let store = try ctx.newStore()
            try ctx.expectError("read on a store never opened", matching: isNotOpen) { _ = try store.read { try $0.records([]) } }
        },
        c("write before open throws notOpen") { ctx in
            let store = try ctx.newStore()
            try ctx.expectError("write on a store never opened", matching: isNotOpen) {
                _ = try store.write(ChangeSet(inserts: [Fixtures.person(-1, "Ann")]))
            }
        },
        c("read after close throws notOpen") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            store.close()
            try ctx.expectError("read after close", matching: isNotOpen) { _ = try store.read { try $0.fetch(FetchRequest(entity: "Person")) } }
        },
        c("write after close throws notOpen") { ctx in
            let store = try ctx.openStore()
            store.close()
            try ctx.expectError("write after close", matching: isNotOpen) {
                _ = try store.write(ChangeSet(inserts: [Fixtures.person(-1, "Ann")]))
            }
        },
        c("closing twice is harmless") { ctx in
            let store = try ctx.openStore()
            store.close()
            store.close()
            try ctx.expectError("read after two closes", matching: isNotOpen) { _ = try store.read { try $0.records([]) } }
        },
        c("erase leaves the store closed") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            try store.erase()
            try ctx.expectError("read after erase", matching: isNotOpen) { _ = try store.read { try $0.records([]) } }
        },
        c("erase then open is a new, empty store") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            try store.erase()
            try ctx.expect(try store.open(schema: Fixtures.schema) == nil, "open after erase did not return nil")
            try ctx.expectEqual(try ctx.fetch(store, FetchRequest(entity: "Person")).count, 0, "people after erase")
            try ctx.expectEqual(try ctx.fetch(store, FetchRequest(entity: "Pet")).count, 0, "pets after erase")
        },
        c("reopen returns the metadata", requires: .persistent) { ctx in
            let store = try ctx.openStore()
            let (_, metadata) = try ctx.reopen(store)
            try ctx.expectEqual(metadata?.schemaHash, Fixtures.schema.schemaHash, "schemaHash after reopen")
            try ctx.expectEqual(metadata?.modelVersion, "V1", "modelVersion after reopen")
        },
        c("reopen returns metadata written with a change set", requires: .persistent) { ctx in
            let store = try ctx.openStore()
            let metadata = StoredMetadata(modelVersion: "V1", schemaHash: Fixtures.schema.schemaHash, userInfo: ["answer": "42"])
            _ = try store.write(ChangeSet(inserts: [Fixtures.person(-1, "Ann")], metadata: metadata))
            let (_, reopened) = try ctx.reopen(store)
            try ctx.expectEqual(reopened, metadata, "metadata after reopen")
        },
        c("erase then reopen is a new, empty store", requires: .persistent) { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            try store.erase()
            let (reopened, metadata) = try ctx.reopen(store)
            try ctx.expect(metadata == nil, "open after erase and reopen returned \(String(describing: metadata)), expected nil")
            try ctx.expectEqual(try ctx.fetch(reopened, FetchRequest(entity: "Person")).count, 0, "people after erase and reopen")
        },
        c("a schema-hash mismatch leaves the data untouched", requires: .persistent) { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            let (other, metadata) = try ctx.reopen(store, schema: Fixtures.otherSchema)
            try ctx.expectEqual(metadata?.schemaHash, Fixtures.schema.schemaHash, "stored schemaHash seen by a different model")
            let (again, metadata2) = try ctx.reopen(other)
            try ctx.expectEqual(metadata2?.schemaHash, Fixtures.schema.schemaHash, "stored schemaHash after the mismatch")
            try ctx.expectSameFetch(again, world, FetchRequest(entity: "Pet"))
            try ctx.expectSameFetch(again, world, FetchRequest(entity: "Person"))
        },
        c("a schema-hash mismatch can be erased and reopened", requires: .persistent) { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            let (other, _) = try ctx.reopen(store, schema: Fixtures.otherSchema)
            try other.erase()
            try ctx.expect(try other.open(schema: Fixtures.otherSchema) == nil, "open after erasing a mismatched store did not return nil")
            try ctx.expectEqual(try ctx.fetch(other, FetchRequest(entity: "Person"), schema: Fixtures.otherSchema).count, 0, "people after erase")
        },
    ]

    static func isNotOpen(_ error: StorageError) -> Bool {
        if case .notOpen = error { return true }
        return false
    }
}
