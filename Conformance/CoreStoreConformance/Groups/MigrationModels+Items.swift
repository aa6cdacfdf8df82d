import Foundation
import CoreStore

/// Model version "V1" of the items of the batch cases: a chain of items (`next` ↔ `previous`),
/// each in one of ten groups.
enum ItemsV1 {
    final class Item: CoreStoreObject {
        @Field.Stored("number") var number: Int = 0
        @Field.Relationship("next", inverse: \Item.$previous) var next: Item?
        @Field.Relationship("previous") var previous: Item?
        @Field.Relationship("group") var group: ItemGroup?
    }

    final class ItemGroup: CoreStoreObject {
        @Field.Stored("name") var name: String = ""
        @Field.Relationship("items", inverse: \Item.$group) var items: Set<Item>
    }

    static func schema() -> CoreStoreSchema {
        CoreStoreSchema(modelVersion: "V1", entities: [Entity<Item>("Item"), Entity<ItemGroup>("ItemGroup")])
    }
}

/// "V2": `label` added (default "item") and `next` renamed `successor` — a relationship change,
/// so every engine copies the records in batches.
enum ItemsV2 {
    final class Item: CoreStoreObject {
        @Field.Stored("number") var number: Int = 0
        @Field.Stored("label") var label: String = "item"
        @Field.Relationship("successor", inverse: \Item.$previous, previousVersionKeyPath: "next") var successor: Item?
        @Field.Relationship("previous") var previous: Item?
        @Field.Relationship("group") var group: ItemGroup?
    }

    final class ItemGroup: CoreStoreObject {
        @Field.Stored("name") var name: String = ""
        @Field.Relationship("items", inverse: \Item.$group) var items: Set<Item>
    }

    static func schema() -> CoreStoreSchema {
        CoreStoreSchema(modelVersion: "V2", entities: [Entity<Item>("Item"), Entity<ItemGroup>("ItemGroup")])
    }
}

/// Writes `count` items numbered from 0, item `n` followed by `n + 1` and in group `g<n % 10>`.
enum ItemsSeed {
    static func write(_ stack: DataStack, count: Int) throws {
        try stack.perform(synchronous: { t in
            let groups = (0..<10).map { index -> ItemsV1.ItemGroup in
                let group = t.create(Into<ItemsV1.ItemGroup>())
                group.name = "g\(index)"
                return group
            }
            var previous: ItemsV1.Item?
            for number in 0..<count {
                let item = t.create(Into<ItemsV1.Item>())
                item.number = number
                item.group = groups[number % 10]
                item.previous = previous
                previous = item
            }
        })
    }
}
