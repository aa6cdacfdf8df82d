import Foundation
import CoreStore
import CoreStoreStorage

/// `LocalStorageOptions` and migrations: `.preventProgressiveMigration`,
/// `.allowSynchronousLightweightMigration` (and `addStorageAndWait` without it),
/// `.recreateStoreOnModelMismatch`.
extension MigrationCases {
    /// A store of books "V1" and its file baseline.
    static func booksV1Store(_ ctx: ConformanceContext) throws -> (any StorageInterface, FileBaseline) {
        let store = try seeded(ctx, BooksV1.schema(), BooksSeed.writeV1)
        return (store, try baseline(ctx, store, BooksV1.schema()))
    }

    /// A copying step "V1" → "V2" of the books: heavyweight.
    static func heavyweightBooksStep() -> CustomSchemaMappingProvider {
        CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
            .transformEntity(sourceEntity: "Book", destinationEntity: "Book", transformer: CustomMapping.inferredTransformation),
        ])
    }

    static let optionCases: [ConformanceCase] = [
        c(".preventProgressiveMigration refuses two steps with progressiveMigrationRequired and allows one") { ctx in
            let (store, baseline) = try booksV1Store(ctx)
            let stack = booksStack(["V1", "V2", "V3"])
            let addition = try add(ctx, stack, try local(ctx, over: store, options: .preventProgressiveMigration))
            try expectFailure(ctx, addition.result, "adding a store that needs V1 → V2 → V3 with .preventProgressiveMigration", expected: "progressiveMigrationRequired") {
                if case .progressiveMigrationRequired = $0 { return true }
                return false
            }
            try expectFilesUntouched(ctx, store, baseline, "a store refused with progressiveMigrationRequired")
            try expectBooksKeptV1(ctx, store, "after progressiveMigrationRequired")
            let direct = try migrated(ctx, store, booksStack(["V1": "V3", "V2": "V3"]), options: .preventProgressiveMigration)
            try ctx.expectEqual(try BooksSeed.readV3(direct), ["Dune:5:100:nil", "Emma:4:100:nil", "Ulysses:4:100:nil"], "books migrated in one step with .preventProgressiveMigration")
        },
        c("addStorageAndWait refuses to migrate without .allowSynchronousLightweightMigration (asynchronousMigrationRequired)") { ctx in
            let (store, baseline) = try booksV1Store(ctx)
            let stack = DataStack(BooksV1.schema(), BooksV2.schema())
            let storage = try local(ctx, over: store)
            try APICases.expectCoreStoreError(ctx, "addStorageAndWait of a store that needs a lightweight step, without the option", matching: isAsynchronousMigrationRequired) {
                try stack.addStorageAndWait(storage)
            }
            try ctx.expectEqual(stack.storages.count, 0, "stores added to the stack")
            try expectFilesUntouched(ctx, store, baseline, "a store refused with asynchronousMigrationRequired")
            try expectBooksKeptV1(ctx, store, "after asynchronousMigrationRequired")
        },
        c("addStorageAndWait with .allowSynchronousLightweightMigration migrates a lightweight step at once") { ctx in
            let store = try seeded(ctx, BooksV1.schema(), BooksSeed.writeV1)
            let stack = DataStack(BooksV1.schema(), BooksV2.schema())
            let storage = try local(ctx, over: store, options: .allowSynchronousLightweightMigration)
            do {
                try stack.addStorageAndWait(storage)
            } catch {
                try ctx.fail("addStorageAndWait with .allowSynchronousLightweightMigration threw \(error)")
            }
            try ctx.expectEqual(stack.storages.count, 1, "stores added to the stack when addStorageAndWait returned")
            try ctx.expectEqual(try BooksSeed.readV2(stack), ["Dune:5:50", "Emma:4:50", "Ulysses:4:50"], "books migrated synchronously")
        },
        c("addStorageAndWait with .allowSynchronousLightweightMigration still refuses a heavyweight step") { ctx in
            let (store, baseline) = try booksV1Store(ctx)
            let stack = DataStack(BooksV1.schema(), BooksV2.schema())
            let storage = try local(ctx, over: store, providers: [heavyweightBooksStep()], options: .allowSynchronousLightweightMigration)
            try APICases.expectCoreStoreError(ctx, "addStorageAndWait of a store that needs a heavyweight step", matching: isAsynchronousMigrationRequired) {
                try stack.addStorageAndWait(storage)
            }
            try expectFilesUntouched(ctx, store, baseline, "a store refused with asynchronousMigrationRequired")
            try expectBooksKeptV1(ctx, store, "after a heavyweight step was refused")
        },
        c(".recreateStoreOnModelMismatch erases a store that cannot be migrated") { ctx in
            let store = try seeded(ctx, BooksV1.schema(), BooksSeed.writeV1)
            do {
                let stack = DataStack(BooksV1.schema(), BooksRetyped.schema())
                let addition = try add(ctx, stack, try local(ctx, over: store, options: .recreateStoreOnModelMismatch))
                if case .failure(let error) = addition.result { try ctx.fail("adding an unmigratable store with .recreateStoreOnModelMismatch failed: \(error.debugDescription)") }
                try ctx.expectEqual(try stack.fetchCount(From<BooksRetyped.Book>()), 0, "books in the recreated store")
                try stack.perform(synchronous: { t in
                    let book = t.create(Into<BooksRetyped.Book>())
                    book.title = "Walden"; book.rating = "***"
                })
            }
            let books = try withStack(ctx, over: store, BooksRetyped.schema()) { stack in
                try stack.fetchAll(From<BooksRetyped.Book>()).map { "\($0.title):\($0.rating)" }
            }
            try ctx.expectEqual(books, ["Walden:***"], "books of the recreated store, reopened by a stack of its new version")
        },
    ]
}
