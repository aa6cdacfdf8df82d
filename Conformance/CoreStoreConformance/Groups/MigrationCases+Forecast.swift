import Foundation
import CoreStore
import CoreStoreStorage

/// Forecasts (`requiredMigrationsForStorage`) and progress reports (`addStorage(_:completion:)`'s
/// `Progress`, the stream of `dataStack.async.addStorage`).
extension MigrationCases {
    /// The people of a "V1" stack as `name:email`, by name.
    static func describePeopleV1(_ stack: DataStack) throws -> [String] {
        try stack.fetchAll(From<PeopleV1.Person>().orderBy(.ascending(\.$name))).map { "\($0.name):\($0.email)" }
    }

    static let forecastCases: [ConformanceCase] = [
        c("requiredMigrationsForStorage forecasts each step's type and versions and changes nothing") { ctx in
            let store = try seeded(ctx, PeopleV1.schema(), PeopleSeed.writeV1)
            let baseline = try baseline(ctx, store, PeopleV1.schema())
            let stack = DataStack(PeopleV1.schema(), PeopleV2.schema(), PeopleV3.schema(), migrationChain: ["V1", "V2", "V3"])
            let storage = try local(ctx, over: store, providers: [toV3([])])
            let steps: [MigrationType]
            do throws(CoreStoreError) {
                steps = try stack.requiredMigrationsForStorage(storage)
            } catch {
                try ctx.fail("requiredMigrationsForStorage threw \(error.debugDescription)")
            }
            try ctx.expectEqual(steps, [.lightweight(sourceVersion: "V1", destinationVersion: "V2"), .heavyweight(sourceVersion: "V2", destinationVersion: "V3")], "forecast steps")
            try ctx.expectEqual(steps.map(\.isLightweightMigration), [true, false], "isLightweightMigration of each step")
            try ctx.expectEqual(steps.map(\.isHeavyweightMigration), [false, true], "isHeavyweightMigration of each step")
            try ctx.expectEqual(stack.storages.count, 0, "stores the forecast added to the stack")
            try expectFilesUntouched(ctx, store, baseline, "the store's files after requiredMigrationsForStorage")
            try ctx.expectEqual(try withStack(ctx, over: store, PeopleV1.schema(), describePeopleV1), ["Ann:ann@x", "Bob:bob@x", "Cid:cid@x"],
                                "people read by a V1 stack after the forecast")
            let addition = try add(ctx, stack, try local(ctx, over: store, providers: [toV3([])]))
            if case .failure(let error) = addition.result { try ctx.fail("migrating after the forecast failed: \(error.debugDescription)") }
            try ctx.expectEqual(try describePeopleV3(stack).count, 3, "people after migrating the forecast store")
        },
        c("requiredMigrationsForStorage is empty for an up-to-date store and for a store not created yet") { ctx in
            let store = try seeded(ctx, BooksV2.schema(), BooksSeed.writeV2)
            let stack = DataStack(BooksV1.schema(), BooksV2.schema())
            try ctx.expectEqual(try forecast(ctx, store, stack), [], "forecast for a store at the current version")
            let fresh = try ctx.newStore()
            let freshLocal = try upgradable(ctx, fresh)
            let steps: [MigrationType]
            do throws(CoreStoreError) {
                steps = try stack.requiredMigrationsForStorage(freshLocal)
            } catch {
                try ctx.fail("requiredMigrationsForStorage of a store that does not exist threw \(error.debugDescription)")
            }
            try ctx.expectEqual(steps, [], "forecast for a store that does not exist yet")
            try ctx.expect(!(try freshLocal.storeExists()), "the forecast created \(fresh.storeDescription)")
        },
    ]

    static let progressCases: [ConformanceCase] = [
        c("addStorage(_:completion:) returns a Progress that ends at 1.0 after migrating, and nil when nothing needs migrating") { ctx in
            let store = try seeded(ctx, BooksV1.schema(), BooksSeed.writeV1)
            do {
                let stack = booksStack(["V1", "V2", "V3"])
                let addition = try add(ctx, stack, try local(ctx, over: store))
                if case .failure(let error) = addition.result { try ctx.fail("migrating V1 → V2 → V3 failed: \(error.debugDescription)") }
                let progress = try ctx.unwrap(addition.progress, "the Progress addStorage returned for a store that needs two steps")
                try ctx.expectEqual(progress.totalUnitCount, 2, "total units of the Progress (one per step)")
                try ctx.expectEqual(progress.completedUnitCount, 2, "completed units once the completion ran")
                try ctx.expectEqual(progress.fractionCompleted, 1.0, "fractionCompleted once the completion ran")
                try ctx.expectEqual(try BooksSeed.readV3(stack).count, 3, "books after the migration")
            }
            let again = try add(ctx, booksStack(["V1", "V2", "V3"]), try local(ctx, over: store))
            if case .failure(let error) = again.result { try ctx.fail("adding the migrated store again failed: \(error.debugDescription)") }
            try ctx.expect(again.progress == nil, "addStorage returned a Progress for a store at the current version")
            let fresh = try ctx.newStore()
            let freshLocal = try upgradable(ctx, fresh)
            let created = try add(ctx, booksStack(["V1", "V2", "V3"]), freshLocal)
            if case .failure(let error) = created.result { try ctx.fail("adding a new store failed: \(error.debugDescription)") }
            try ctx.expect(created.progress == nil, "addStorage returned a Progress for a new store")
        },
        c("async.addStorage reports .migrating, then .finished(migrationRequired: true); only .finished(false) when up to date") { ctx in
            let store = try seeded(ctx, BooksV1.schema(), BooksSeed.writeV1)
            do {
                let stack = DataStack(BooksV1.schema(), BooksV2.schema())
                let report = try streamAddition(ctx, stack, try local(ctx, over: store))
                if let error = report.error { try ctx.fail("the stream ended with \(error) after \(report.events)") }
                let migrating = report.events.dropLast()
                try ctx.expect(!migrating.isEmpty && migrating.allSatisfy { $0 == "migrating" } && report.events.last == "finished(migrationRequired: true)",
                               "the stream yielded \(report.events), expected .migrating (one or more), then .finished(migrationRequired: true)")
                try ctx.expectEqual(report.finalFraction, 1.0, "fractionCompleted of the .migrating progress once the stream finished")
                try ctx.expectEqual(try BooksSeed.readV2(stack), ["Dune:5:50", "Emma:4:50", "Ulysses:4:50"], "books after the streamed migration")
            }
            let stack = DataStack(BooksV1.schema(), BooksV2.schema())
            let report = try streamAddition(ctx, stack, try local(ctx, over: store))
            if let error = report.error { try ctx.fail("the stream of an up-to-date store ended with \(error)") }
            try ctx.expectEqual(report.events, ["finished(migrationRequired: false)"], "what the stream of an up-to-date store yielded")
            try ctx.expectEqual(try BooksSeed.readV2(stack).count, 3, "books of the up-to-date store")
        },
    ]
}
