import Foundation
import CoreStoreStorage

/// Paging through one entity with ``StorageReader/records(of:after:limit:)``: what migrations
/// and the store tools read a whole entity with.
extension CRUDCases {
    /// Reads every page of `entity` with `limit` records each, starting at the lowest key.
    static func allPages(_ store: any StorageInterface, _ entity: String, limit: Int) throws -> [[Record]] {
        var pages: [[Record]] = []
        var after = Int64.min
        while true {
            let page = try store.read { try $0.records(of: entity, after: after, limit: limit) }
            if page.isEmpty { return pages }
            pages.append(page)
            guard let last = page.last else { return pages }
            after = last.id.key
        }
    }

    static let pages: [ConformanceCase] = [
        c("records(of:after:limit:) pages one entity in key order, without its sub-entities") { ctx in
            var (store, world) = try ctx.seeded(Fixtures.world())
            // More dogs and pets, interleaved by key, so that pages of either skip the other's.
            var more: [Record] = []
            for i in 1...7 {
                let key = Int64(-100 - i)
                more.append(i % 2 == 0 ? Fixtures.pet(key, "Pet \(i)") : Fixtures.dog(key, "Dog \(i)"))
            }
            try ctx.commit(store, ChangeSet(inserts: more), into: &world)
            for entity in ["Person", "Pet", "Dog", "Code"] {
                let expected = try world.reference(FetchRequest(entity: entity, includesSubentities: false))
                for limit in [1, 2, 3, 1_000] {
                    let pages = try allPages(store, entity, limit: limit)
                    try ctx.expect(pages.dropLast().allSatisfy { $0.count == limit }, "\(entity), limit \(limit): a page before the last is short: \(pages.map(\.count))")
                    try ctx.expect(pages.allSatisfy { $0.count <= limit }, "\(entity), limit \(limit): a page is longer than the limit: \(pages.map(\.count))")
                    let records = pages.flatMap { $0 }
                    try ctx.expectEqual(records.map(\.id.key), expected.map(\.id.key), "keys of \(entity) paged by \(limit)")
                    for (actual, wanted) in zip(records, expected) { try ctx.expectSameRecord(actual, wanted) }
                }
            }
        },
        c("records(of:after:limit:) starts after the given key, and a zero limit or the highest key gives nothing") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            let people = try world.reference(FetchRequest(entity: "Person", includesSubentities: false))
            try ctx.expect(people.count >= 3, "the fixture has at least three people")
            let middle = people[1].id.key
            let rest = try store.read { try $0.records(of: "Person", after: middle, limit: 100) }
            try ctx.expectEqual(rest.map(\.id.key), people.dropFirst(2).map(\.id.key), "people after the second")
            // A key between two records: everything above it.
            let between = try store.read { try $0.records(of: "Person", after: middle - 1, limit: 100) }
            try ctx.expectEqual(between.first?.id.key, people.first { $0.id.key > middle - 1 }?.id.key, "first person after a key just below the second's")
            try ctx.expectEqual(try store.read { try $0.records(of: "Person", after: .min, limit: 0) }.count, 0, "records with limit 0")
            try ctx.expectEqual(try store.read { try $0.records(of: "Person", after: .max, limit: 10) }.count, 0, "records after Int64.max")
        },
        c("records(of:after:limit:) of an unknown entity throws") { ctx in
            let store = try ctx.openStore()
            try ctx.expectError("records of an unknown entity") {
                _ = try store.read { try $0.records(of: "Nope", after: .min, limit: 10) }
            }
        },
    ]
}
