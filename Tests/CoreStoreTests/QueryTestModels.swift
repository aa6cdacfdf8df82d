import Foundation
@testable import CoreStore

/// One field of every storable kind, for query result conversions.
final class Sample: CoreStoreObject {
    @Field.Stored("label") var label: String = ""
    @Field.Stored("count") var count: Int = 0
    @Field.Stored("ratio") var ratio: Double?
    @Field.Stored("price") var price: Decimal?
    @Field.Stored("flag") var flag: Bool = false
    @Field.Stored("taken") var taken: Date?
    @Field.Stored("blob") var blob: Data?
    @Field.Stored("code") var code: UUID?
    @Field.Stored("link") var link: URL?
    @Field.Stored("weight") var weight: Float?
    @Field.Stored("huge") var huge: UInt64?
}

enum Samples {
    static let code = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
    static let taken = Date(timeIntervalSince1970: 1_000)

    /// A stack on a new store of the given kind with two samples: "s1" with every field set, "s2" with only label and count.
    static func makeStack(_ kind: StoreKind) throws -> DataStack {
        let stack = DataStack(CoreStoreSchema(modelVersion: "Q1", entities: [Entity<Sample>("Sample")], versionLock: nil))
        try stack.addStorageAndWait(kind.makeStore())
        try stack.perform(synchronous: { transaction in
            let full = transaction.create(Into<Sample>())
            full.label = "s1"
            full.count = 42
            full.ratio = 2.5
            full.price = Decimal(string: "12.75")
            full.flag = true
            full.taken = taken
            full.blob = Data([1, 2, 3])
            full.code = code
            full.link = URL(string: "https://example.com/a")
            full.weight = 1.5
            full.huge = .max
            let sparse = transaction.create(Into<Sample>())
            sparse.label = "s2"
            sparse.count = -3
        })
        return stack
    }
}
