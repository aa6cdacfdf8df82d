import Foundation
import CoreStore
import CoreStoreStorage

/// A store keeps the schema its data was written with, so that tools read it without the model.
extension APICases {
    static let recordedSchemaCases: [ConformanceCase] = [
        c("a DataStack records its schema and version lock in the store's metadata", requires: .persistent) { ctx in
            let store = try populatedStore(ctx, schema()) { stack in
                try stack.perform(synchronous: { t in t.create(Into<ConformancePerson>()).name = "Ann" })
            }
            let probe = StoreSchema(modelVersion: "", schemaHash: "conformance-probe", entities: [])
            let (reopened, metadata) = try ctx.reopen(store, schema: probe)
            reopened.close()
            let stored = try ctx.unwrap(metadata, "the metadata of the reopened store")
            let recorded = try ctx.unwrap(try stored.recordedSchema(store: "conformance"), "the recorded schema")
            try ctx.expectEqual(recorded.modelVersion, "V1", "recorded model version")
            try ctx.expectEqual(recorded.schemaHash, stored.schemaHash, "recorded schema hash")
            try ctx.expectEqual(recorded.entities.map(\.name), ["Person", "Pet"], "recorded entities")
            try ctx.expectEqual(recorded.entity(named: "Person")?.attributes.map(\.name), ["name", "age", "nickname", "score"], "recorded attributes of Person")
            try ctx.expectEqual(recorded.entity(named: "Pet")?.relationships.first?.inverseName, "pets", "recorded inverse of Pet.owner")
            try ctx.expect(stored.userInfo[StoredMetadata.versionLockKey]?.contains("\"Person\": [0x") == true, "the version lock is recorded: \(stored.userInfo[StoredMetadata.versionLockKey] ?? "nil")")
        },
    ]
}
