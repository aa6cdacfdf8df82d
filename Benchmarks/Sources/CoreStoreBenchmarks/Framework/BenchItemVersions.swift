import CoreStore
import Foundation

/// The benchmark entity after W12: one more attribute, `rank`, added by an inferred step.
final class BenchItemV2: CoreStoreObject {
    @Field.Stored("id") var itemID: Int64 = 0
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("score") var score: Double = 0
    @Field.Stored("created") var created: Date = Date(timeIntervalSince1970: 0)
    @Field.Stored("rank") var rank: Int = 0

    static let schema = CoreStoreSchema(
        modelVersion: "Bench2",
        entities: [Entity<BenchItemV2>("Item", indexes: [[\BenchItemV2.$itemID], [\BenchItemV2.$age]])]
    )
}

/// The benchmark entity after W13: `name` upper-cased and `band` computed from `score` by a
/// custom transformer for every row.
final class BenchItemV3: CoreStoreObject {
    @Field.Stored("id") var itemID: Int64 = 0
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("score") var score: Double = 0
    @Field.Stored("created") var created: Date = Date(timeIntervalSince1970: 0)
    @Field.Stored("rank") var rank: Int = 0
    @Field.Stored("band") var band: Int = 0

    static let schema = CoreStoreSchema(
        modelVersion: "Bench3",
        entities: [Entity<BenchItemV3>("Item", indexes: [[\BenchItemV3.$itemID], [\BenchItemV3.$age]])]
    )

    /// The W13 mapping.
    static let mapping = CustomSchemaMappingProvider(from: "Bench2", to: "Bench3", entityMappings: [
        .transformEntity(sourceEntity: "Item", destinationEntity: "Item") { source, createDestination in
            let item = createDestination()
            item.enumerateAttributes { attribute, sourceAttribute in
                if let sourceAttribute { item[attribute] = source[sourceAttribute] }
            }
            item["name"] = (source["name"] as? String)?.uppercased()
            item["band"] = Int((source["score"] as? Double ?? 0) / 100)
        },
    ])
}
