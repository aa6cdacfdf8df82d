import Foundation
import Testing
@testable import CoreStore

/// An enum declared as CoreStore users declare them, used as a stored field, a unique import
/// identifier and a query result.
enum PlanTier: String, ImportableAttributeType, FieldStorableType {
    case free, team, enterprise
}

final class Plan: CoreStoreObject, ImportableUniqueObject {
    @Field.Stored("tier") var tier: PlanTier = .free
    @Field.Stored("seats") var seats: Int = 1

    typealias ImportSource = [String: Any]
    static let uniqueIDKeyPath = String(keyPath: \Plan.$tier)
    var uniqueIDValue: PlanTier {
        get { tier }
        set { tier = newValue }
    }

    static func uniqueID(from source: ImportSource, in transaction: BaseDataTransaction) throws -> PlanTier? {
        (source["tier"] as? String).flatMap(PlanTier.init(rawValue:))
    }

    func update(from source: ImportSource, in transaction: BaseDataTransaction) throws {
        seats = try source.importValue("seats", as: Int.self)
    }
}

@Suite("ImportableAttributeType")
struct ImportableAttributeTypeTests {
    static let schema = CoreStoreSchema(modelVersion: "V1", entities: [Entity<Plan>("Plan", uniqueConstraints: [[\Plan.$tier]])])

    @Test("A RawRepresentable enum keys unique imports and reads back from queries", arguments: StoreKind.allCases)
    func enumIdentifiers(kind: StoreKind) throws {
        let stack = DataStack(Self.schema)
        try stack.addStorageAndWait(kind.makeStore())
        try stack.perform(synchronous: { t in
            _ = try t.importUniqueObjects(Into<Plan>(), sourceArray: [["tier": "free", "seats": 1], ["tier": "team", "seats": 5]])
        })
        try stack.perform(synchronous: { t in
            _ = try t.importUniqueObjects(Into<Plan>(), sourceArray: [["tier": "team", "seats": 8], ["tier": "enterprise", "seats": 100]])
        })
        let plans = try stack.fetchAll(From<Plan>().orderBy(.ascending(\.$seats)))
        #expect(plans.map(\.tier) == [.free, .team, .enterprise])
        #expect(plans.map(\.seats) == [1, 8, 100])
        let tiers = try stack.queryAttributes(From<Plan>().select(NSDictionary.self, .attribute(\.$tier)).orderBy(.ascending(\.$seats)))
        #expect(tiers.compactMap { $0["tier"] as? String } == ["free", "team", "enterprise"])
        #expect(try stack.queryValue(From<Plan>().select(PlanTier.self, .attribute(\.$tier)).where(\.$seats == 8)) == .team)
        #expect(throws: CoreStoreError.self, "a raw value that is no case") {
            try PlanTier.cs_fromQueryableValue(.string("gold"))
        }
    }
}
