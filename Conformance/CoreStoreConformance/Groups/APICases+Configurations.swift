import Foundation
import CoreStore
import CoreStoreStorage

/// A note, kept in both the "Local" and the "Cloud" configuration.
final class ConformanceNote: CoreStoreObject {
    @Field.Stored("text") var text: String = ""
}

/// A draft, kept only in the "Local" configuration.
final class ConformanceDraft: CoreStoreObject {
    @Field.Stored("text") var text: String = ""
}

/// A photo, kept only in the "Cloud" configuration.
final class ConformancePhoto: CoreStoreObject {
    @Field.Stored("caption") var caption: String = ""
}

extension APICases {
    static func configuredSchema() -> CoreStoreSchema {
        CoreStoreSchema(modelVersion: "V1", entitiesByConfiguration: [
            "Local": [Entity<ConformanceNote>("Note"), Entity<ConformanceDraft>("Draft")],
            "Cloud": [Entity<ConformanceNote>("Note"), Entity<ConformancePhoto>("Photo")],
        ])
    }

    /// A stack with a "Local" and a "Cloud" store of the factory.
    static func configuredStack(_ ctx: ConformanceContext) throws -> (DataStack, local: any StorageInterface, cloud: any StorageInterface) {
        let stack = DataStack(configuredSchema())
        let local = try ctx.newStore(configuration: "Local"), cloud = try ctx.newStore(configuration: "Cloud")
        try stack.addStorageAndWait(local)
        try stack.addStorageAndWait(cloud)
        return (stack, local, cloud)
    }

    /// The values of one string attribute of every record of `entity` in `store`, sorted; `nil`
    /// when the store does not hold the entity (it throws `unknownEntity`).
    static func storedStrings(_ store: any StorageInterface, _ entity: String) throws -> [String]? {
        do {
            return try store.read { try $0.fetch(FetchRequest(entity: entity)).records }.flatMap { record in
                record.attributes.compactMap { value -> String? in
                    if case .string(let s) = value { return s }
                    return nil
                }
            }.sorted()
        } catch StorageError.unknownEntity {
            return nil
        }
    }

    static let configurationCases: [ConformanceCase] = [
        c("two configurations on one stack: each entity lands in its own store") { ctx in
            let (stack, local, cloud) = try configuredStack(ctx)
            try stack.perform(synchronous: { t in
                t.create(Into<ConformanceNote>("Local")).text = "local note"
                t.create(Into<ConformanceNote>("Cloud")).text = "cloud note"
                t.create(Into<ConformanceDraft>()).text = "draft"
                t.create(Into<ConformancePhoto>()).caption = "photo"
            })
            try ctx.expectEqual(try storedStrings(local, "Note"), ["local note"], "notes held by the Local store")
            try ctx.expectEqual(try storedStrings(cloud, "Note"), ["cloud note"], "notes held by the Cloud store")
            try ctx.expectEqual(try storedStrings(local, "Draft"), ["draft"], "drafts held by the Local store")
            try ctx.expectEqual(try storedStrings(cloud, "Photo"), ["photo"], "photos held by the Cloud store")
            try ctx.expectEqual(try storedStrings(cloud, "Draft"), nil, "drafts held by the Cloud store (it has no such entity)")
            try ctx.expectEqual(try storedStrings(local, "Photo"), nil, "photos held by the Local store (it has no such entity)")
        },
        c("two configurations on one stack: fetches read the stores they name") { ctx in
            let (stack, _, _) = try configuredStack(ctx)
            try stack.perform(synchronous: { t in
                t.create(Into<ConformanceNote>("Local")).text = "b local"
                t.create(Into<ConformanceNote>("Cloud")).text = "a cloud"
                t.create(Into<ConformanceNote>("Cloud")).text = "c cloud"
            })
            try ctx.expectEqual(try stack.fetchAll(From<ConformanceNote>().orderBy(.ascending(\.$text))).map(\.text), ["a cloud", "b local", "c cloud"], "notes of both stores, sorted")
            try ctx.expectEqual(try stack.fetchAll(From<ConformanceNote>("Local")).map(\.text), ["b local"], "notes of the Local store")
            try ctx.expectEqual(try stack.fetchCount(From<ConformanceNote>("Cloud")), 2, "notes of the Cloud store")
            try ctx.expectEqual(try stack.fetchAll(From<ConformanceNote>().orderBy(.descending(\.$text)).tweak { $0.fetchLimit = 2 }).map(\.text), ["c cloud", "b local"], "the last two notes of both stores")
        },
        c("an insert into an entity that no store holds fails with persistentStoreNotFound") { ctx in
            let stack = DataStack(configuredSchema())
            let cloud = try ctx.newStore(configuration: "Cloud")
            try stack.addStorageAndWait(cloud)
            try expectCoreStoreError(ctx, "creating a Draft without a Local store", matching: {
                if case .persistentStoreNotFound(let entity, _) = $0 { return entity == "Draft" }
                return false
            }) {
                try stack.perform(synchronous: { t in
                    t.create(Into<ConformancePhoto>()).caption = "would be saved"
                    t.create(Into<ConformanceDraft>()).text = "nowhere to go"
                })
            }
            try ctx.expectEqual(try stack.fetchCount(From<ConformancePhoto>()), 0, "photos saved by the failed transaction")
            try ctx.expectEqual(try storedStrings(cloud, "Photo"), [], "photos held by the Cloud store")
        },
        c("an insert into an entity of two stores without naming one fails with ambiguousStore") { ctx in
            let (stack, local, cloud) = try configuredStack(ctx)
            try expectCoreStoreError(ctx, "creating a Note without a configuration", matching: {
                if case .ambiguousStore(let entity, let configurations) = $0 { return entity == "Note" && Set(configurations) == ["Local", "Cloud"] }
                return false
            }) {
                try stack.perform(synchronous: { t in t.create(Into<ConformanceNote>()).text = "where?" })
            }
            try ctx.expectEqual(try storedStrings(local, "Note"), [], "notes held by the Local store")
            try ctx.expectEqual(try storedStrings(cloud, "Note"), [], "notes held by the Cloud store")
        },
        c("a store for a configuration the schema does not have is refused") { ctx in
            let stack = DataStack(configuredSchema())
            try expectCoreStoreError(ctx, "adding a store for configuration 'Nope'", matching: {
                if case .persistentStoreNotFound(_, let configuration) = $0 { return configuration == "Nope" }
                return false
            }) {
                try stack.addStorageAndWait(try ctx.newStore(configuration: "Nope"))
            }
            try ctx.expectEqual(stack.storages.count, 0, "stores added")
        },
    ]
}
