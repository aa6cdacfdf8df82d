import Foundation
import CoreStore
import CoreStoreStorage

/// Migrations that cannot run: each fails with its `CoreStoreError` and leaves the store as it
/// was (byte for byte when the failure is found before migrating; its version and data always).
extension MigrationCases {
    /// Fails unless forecasting `store` for `stack` throws `mappingModelNotFound`; returns it.
    @discardableResult
    static func expectForecastRefused(_ ctx: ConformanceContext, _ store: any StorageInterface, _ stack: DataStack, _ what: String) throws -> CoreStoreError {
        let storage = try local(ctx, over: store)
        let steps: [MigrationType]
        do throws(CoreStoreError) {
            steps = try stack.requiredMigrationsForStorage(storage)
        } catch {
            try ctx.expect(isMappingModelNotFound(error), "requiredMigrationsForStorage \(what) threw \(error.debugDescription), expected mappingModelNotFound")
            return error
        }
        try ctx.fail("requiredMigrationsForStorage \(what) returned \(steps), expected mappingModelNotFound")
    }

    /// Adds a store of books "V1" to `stack`, which cannot migrate it; fails unless the forecast
    /// and the addition throw `mappingModelNotFound` and the store is left as it was.
    static func expectUnmigratable(_ ctx: ConformanceContext, _ stack: DataStack, _ what: String, reasonMentions: String) throws {
        let store = try seeded(ctx, BooksV1.schema(), BooksSeed.writeV1)
        let baseline = try baseline(ctx, store, BooksV1.schema())
        let forecastError = try expectForecastRefused(ctx, store, stack, what)
        try ctx.expect(forecastError.description.contains(reasonMentions), "the forecast's error does not mention \(reasonMentions): \(forecastError)")
        let addition = try add(ctx, stack, try local(ctx, over: store))
        try expectFailure(ctx, addition.result, "adding a store \(what)", expected: "mappingModelNotFound", matching: isMappingModelNotFound)
        try ctx.expectEqual(stack.storages.count, 0, "stores added to the stack")
        try expectFilesUntouched(ctx, store, baseline, "a store \(what)")
        try expectBooksKeptV1(ctx, store, "after the refused migration")
    }

    static let errorCases: [ConformanceCase] = [
        c("a stored version the MigrationChain does not contain fails with mappingModelNotFound and leaves the store untouched") { ctx in
            try expectUnmigratable(ctx, booksStack(["V2", "V3"]), "whose version V1 is not in the chain", reasonMentions: "V1")
        },
        c("a type change without a custom mapping fails with mappingModelNotFound, at forecast time too") { ctx in
            try expectUnmigratable(ctx, DataStack(BooksV1.schema(), BooksRetyped.schema()), "whose rating changes type", reasonMentions: "rating")
        },
        c("migrated data breaking a new unique constraint fails with storageFailure(uniqueConstraintViolation), old data intact") { ctx in
            let store = try seeded(ctx, BooksV1.schema(), BooksSeed.writeV1)
            let stack = DataStack(BooksV1.schema(), BooksV2.uniqueRatings())
            try ctx.expectEqual(try forecast(ctx, store, stack), [.lightweight(sourceVersion: "V1", destinationVersion: "V2")], "forecast (the data is not read)")
            let addition = try add(ctx, stack, try local(ctx, over: store))
            try expectFailure(ctx, addition.result, "migrating two books rated 4 to a model where ratings are unique",
                              expected: "storageFailure(uniqueConstraintViolation)", matching: isUniqueViolation)
            try ctx.expectEqual(stack.storages.count, 0, "stores added to the stack")
            try expectBooksKeptV1(ctx, store, "after the unique constraint refused the migrated data")
        },
        c("an invalid MigrationChain (a version twice) makes adding a store throw invalidSchema") { ctx in
            try expectInvalidChain(ctx, DataStack(BooksV1.schema(), BooksV2.schema(), migrationChain: ["V1", "V2", "V1"]), "a version twice")
        },
        c("an invalid MigrationChain (a loop) makes adding a store throw invalidSchema") { ctx in
            try expectInvalidChain(ctx, DataStack(BooksV1.schema(), BooksV2.schema(), migrationChain: ["V1": "V2", "V2": "V1"]), "a loop")
        },
    ]

    /// Fails unless `stack` refuses a new store (creating nothing) and an existing "V1" store
    /// (left as it was) with `invalidSchema`.
    static func expectInvalidChain(_ ctx: ConformanceContext, _ stack: DataStack, _ what: String) throws {
        let isInvalidSchema: (CoreStoreError) -> Bool = { if case .invalidSchema = $0 { return true }; return false }
        let fresh = try ctx.newStore()
        let freshUpgradable = try upgradable(ctx, fresh)
        try APICases.expectCoreStoreError(ctx, "adding a new store to a stack whose chain has \(what)", matching: isInvalidSchema) {
            try stack.addStorageAndWait(fresh)
        }
        try ctx.expect(!(try freshUpgradable.storeExists()), "the refused store was created: \(fresh.storeDescription)")
        let store = try seeded(ctx, BooksV1.schema(), BooksSeed.writeV1)
        let addition = try add(ctx, stack, try local(ctx, over: store))
        try expectFailure(ctx, addition.result, "adding a V1 store to a stack whose chain has \(what)", expected: "invalidSchema", matching: isInvalidSchema)
        try expectBooksKeptV1(ctx, store, "after a stack with an invalid chain refused it")
    }
}
