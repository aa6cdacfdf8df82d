import Foundation
import CoreStore
import CoreStoreStorage

/// Migration chains: progressive (several steps in one `addStorage`), trees, downgrades, and
/// no chain at all.
extension MigrationCases {
    static func booksStack(_ chain: MigrationChain) -> DataStack {
        DataStack(BooksV1.schema(), BooksV2.schema(), BooksV3.schema(), migrationChain: chain)
    }

    /// Forecasts, then migrates, `store` to the stack's current version; returns the stack.
    @discardableResult
    static func forecastAndMigrate(
        _ ctx: ConformanceContext, _ store: any StorageInterface, _ stack: DataStack, expected: [MigrationType],
        providers: [any SchemaMappingProvider] = []
    ) throws -> DataStack {
        try ctx.expectEqual(try forecast(ctx, store, stack, providers: providers), expected, "forecast to model version '\(stack.modelVersion)'")
        return try migrated(ctx, store, stack, providers: providers)
    }

    static let chainCases: [ConformanceCase] = [
        c("a progressive migration runs V1 → V2 (inferred) → V3 (custom) in one addStorage") { ctx in
            let store = try seeded(ctx, PeopleV1.schema(), PeopleSeed.writeV1)
            let provider = toV3([
                .transformEntity(sourceEntity: "Person", destinationEntity: "Person") { source, createDestination in
                    let destination = createDestination()
                    copyAttributes(source, to: destination)
                    destination["displayName"] = "\(source["name"] as? String ?? "?") (\(source["age"] as? Int64 ?? -1))"
                },
            ])
            let stack = try forecastAndMigrate(
                ctx, store, DataStack(PeopleV1.schema(), PeopleV2.schema(), PeopleV3.schema(), migrationChain: ["V1", "V2", "V3"]),
                expected: [.lightweight(sourceVersion: "V1", destinationVersion: "V2"), .heavyweight(sourceVersion: "V2", destinationVersion: "V3")],
                providers: [provider]
            )
            try ctx.expectEqual(try describePeopleV3(stack), [
                "Ann|34|Annie|ann@x|1.5|nil|Ann (34)|pets:Fido,Rex|vets:",
                "Bob|15|none|bob@x|1.5|nil|Bob (15)|pets:Tom|vets:",
                "Cid|52|none|cid@x|1.5|nil|Cid (52)|pets:|vets:",
            ], "people after V1 → V2 → V3 (contact from V1's email, displayName from the V2 → V3 transformer)")
            try ctx.expectEqual(try describePetsV3(stack), ["Fido|owner:Ann|doctor:nil", "Rex|owner:Ann|doctor:Dr. Who", "Tom|owner:Bob|doctor:Dr. Who"],
                                "pets after V1 → V2 → V3 (vet → doctor → Doctor)")
            try ctx.expectEqual(try describeDoctorsV3(stack), ["Dr. No|patients:|clients:", "Dr. Who|patients:Rex,Tom|clients:"], "doctors after V1 → V2 → V3")
            try ctx.expectEqual(try stack.fetchAll(From<PeopleV3.Toy>().orderBy(.ascending(\.$name))).map(\.name), ["Ball", "Mouse", "Rope", "Stick"], "toys after V1 → V2 → V3")
        },
        c("a linear chain migrates V1 through V2 to V3") { ctx in
            let store = try seeded(ctx, BooksV1.schema(), BooksSeed.writeV1)
            let stack = try forecastAndMigrate(ctx, store, booksStack(["V1", "V2", "V3"]), expected: [
                .lightweight(sourceVersion: "V1", destinationVersion: "V2"), .lightweight(sourceVersion: "V2", destinationVersion: "V3"),
            ])
            try ctx.expectEqual(try BooksSeed.readV3(stack), ["Dune:5:50:nil", "Emma:4:50:nil", "Ulysses:4:50:nil"], "books through V2 (pages: V2's default)")
        },
        c("a tree chain migrates V1 straight to V3") { ctx in
            let store = try seeded(ctx, BooksV1.schema(), BooksSeed.writeV1)
            let stack = try forecastAndMigrate(ctx, store, booksStack(["V1": "V3", "V2": "V3"]), expected: [.lightweight(sourceVersion: "V1", destinationVersion: "V3")])
            try ctx.expectEqual(try BooksSeed.readV3(stack), ["Dune:5:100:nil", "Emma:4:100:nil", "Ulysses:4:100:nil"], "books from V1 straight to V3 (pages: V3's default)")
        },
        c("a tree chain migrates V2 to V3") { ctx in
            let store = try seeded(ctx, BooksV2.schema(), BooksSeed.writeV2)
            let stack = try forecastAndMigrate(ctx, store, booksStack(["V1": "V3", "V2": "V3"]), expected: [.lightweight(sourceVersion: "V2", destinationVersion: "V3")])
            try ctx.expectEqual(try BooksSeed.readV3(stack), ["Dune:5:300:nil", "Emma:4:301:nil", "Ulysses:4:302:nil"], "books from V2 to V3 (pages kept)")
        },
        c("a downgrade chain migrates V2 to V1") { ctx in
            let store = try seeded(ctx, BooksV2.schema(), BooksSeed.writeV2)
            do {
                let stack = DataStack(BooksV1.schema(), BooksV2.schema(), migrationChain: ["V2", "V1"])
                try ctx.expectEqual(stack.modelVersion, "V1", "current version of a stack whose chain ends in V1")
                try forecastAndMigrate(ctx, store, stack, expected: [.lightweight(sourceVersion: "V2", destinationVersion: "V1")])
                try ctx.expectEqual(try BooksSeed.readV1(stack), ["Dune:5", "Emma:4", "Ulysses:4"], "books after V2 → V1")
            }
            try expectBooksKeptV1(ctx, store, "after the downgrade (a V1 stack opens it without migrating)")
        },
        c("without a chain a store migrates straight to the last version") { ctx in
            let store = try seeded(ctx, BooksV1.schema(), BooksSeed.writeV1)
            let stack = try forecastAndMigrate(ctx, store, booksStack(nil), expected: [.lightweight(sourceVersion: "V1", destinationVersion: "V3")])
            try ctx.expectEqual(try BooksSeed.readV3(stack), ["Dune:5:100:nil", "Emma:4:100:nil", "Ulysses:4:100:nil"], "books from V1 straight to V3")
        },
    ]
}
