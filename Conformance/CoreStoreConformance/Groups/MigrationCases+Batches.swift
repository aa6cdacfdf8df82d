import Foundation
import CoreStore
import CoreStoreStorage

/// More records than `SchemaMigrator` copies at a time (1,000), with relationships between
/// records of different batches: inferred, and with a transformer that drops records.
extension MigrationCases {
    static let batchCases: [ConformanceCase] = [
        c("2,500 objects and their relationships migrate across several batches") { ctx in
            let count = 2_500
            let store = try seeded(ctx, ItemsV1.schema()) { try ItemsSeed.write($0, count: count) }
            let stack = try migrated(ctx, store, DataStack(ItemsV1.schema(), ItemsV2.schema()))
            try expectItems(ctx, stack, count: count, kept: { _ in true }, label: { _ in "item" })
        },
        c("a transformer dropping objects across batches leaves no relationship to them") { ctx in
            let count = 2_500
            let store = try seeded(ctx, ItemsV1.schema()) { try ItemsSeed.write($0, count: count) }
            let provider = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
                .transformEntity(sourceEntity: "Item", destinationEntity: "Item") { source, createDestination in
                    guard let number = source["number"] as? Int64, number % 7 != 0 else { return }
                    let destination = createDestination()
                    destination["number"] = number
                    destination["label"] = "kept \(number)"
                },
            ])
            let stack = try migrated(ctx, store, DataStack(ItemsV1.schema(), ItemsV2.schema()), providers: [provider])
            try expectItems(ctx, stack, count: count, kept: { $0 % 7 != 0 }, label: { "kept \($0)" })
        },
    ]

    /// Fails unless the items of the "V2" stack are exactly those `kept` of `0..<count`, each with
    /// `label`, its successor and predecessor when kept, and its group; and every group holds
    /// exactly its kept items.
    static func expectItems(_ ctx: ConformanceContext, _ stack: DataStack, count: Int, kept: (Int) -> Bool, label: (Int) -> String) throws {
        let items = try stack.fetchAll(From<ItemsV2.Item>().orderBy(.ascending(\.$number)))
        let numbers = (0..<count).filter(kept)
        try ctx.expectEqual(items.map(\.number), numbers, "item numbers after the migration")
        for item in items {
            let n = item.number
            let expected = "\(label(n))|\(n + 1 < count && kept(n + 1) ? "\(n + 1)" : "nil")|\(n > 0 && kept(n - 1) ? "\(n - 1)" : "nil")|g\(n % 10)"
            let actual = "\(item.label)|\(item.successor.map { "\($0.number)" } ?? "nil")|\(item.previous.map { "\($0.number)" } ?? "nil")|\(item.group?.name ?? "nil")"
            try ctx.expectEqual(actual, expected, "item \(n) as label|successor|previous|group")
        }
        let withoutSuccessor = numbers.filter { !($0 + 1 < count && kept($0 + 1)) }.count
        try ctx.expectEqual(try stack.fetchCount(From<ItemsV2.Item>().where(\.$successor == nil)), withoutSuccessor,
                            "items the store finds without a successor (no reference to a dropped item left)")
        for group in try stack.fetchAll(From<ItemsV2.ItemGroup>()) {
            let index = Int(group.name.dropFirst()) ?? -1
            try ctx.expectEqual(group.items.map(\.number).sorted(), numbers.filter { $0 % 10 == index }, "items of group \(group.name)")
        }
        let sizes = Set((0..<10).map { index in numbers.filter { $0 % 10 == index }.count })
        for size in sizes {
            let groups = try stack.fetchCount(From<ItemsV2.ItemGroup>().where((\ItemsV2.ItemGroup.$items).count() == size))
            try ctx.expectEqual(groups, (0..<10).filter { index in numbers.filter { $0 % 10 == index }.count == size }.count,
                                "groups the store counts \(size) items in")
        }
    }
}
