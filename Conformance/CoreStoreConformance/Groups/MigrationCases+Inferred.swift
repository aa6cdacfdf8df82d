import Foundation
import CoreStore
import CoreStoreStorage

/// Inferred steps: "V1" → "V2" of the people (relationships change, so records are copied) and
/// of the books (attributes only, so SQLite alters its tables in place).
extension MigrationCases {
    /// A stack of people "V1" and "V2" (no chain: a store migrates straight to "V2").
    static func peopleV2Stack() -> DataStack { DataStack(PeopleV1.schema(), PeopleV2.schema()) }

    /// The people of a "V2" stack as `name|age|nickname|contact|score|note|pets|vets`, by name.
    static func describePeopleV2(_ stack: DataStack) throws -> [String] {
        try stack.fetchAll(From<PeopleV2.Person>().orderBy(.ascending(\.$name))).map { p in
            "\(p.name)|\(p.age)|\(p.nickname)|\(p.contact)|\(p.score)|\(p.note ?? "nil")|pets:\(names(p.pets.map(\.name)))|vets:\(names(p.vets.map(\.name)))"
        }
    }

    /// The pets of a "V2" stack as `name|owner|doctor`, by name.
    static func describePetsV2(_ stack: DataStack) throws -> [String] {
        try stack.fetchAll(From<PeopleV2.Pet>().orderBy(.ascending(\.$name))).map { p in
            "\(p.name)|owner:\(p.owner?.name ?? "nil")|doctor:\(p.doctor?.name ?? "nil")"
        }
    }

    /// The vets of a "V2" stack as `name|patients|clients`, by name.
    static func describeVetsV2(_ stack: DataStack) throws -> [String] {
        try stack.fetchAll(From<PeopleV2.Vet>().orderBy(.ascending(\.$name))).map { v in
            "\(v.name)|patients:\(names(v.patients.map(\.name)))|clients:\(names(v.clients.map(\.name)))"
        }
    }

    /// Sorted, comma-separated.
    static func names(_ names: [String]) -> String { names.sorted().joined(separator: ",") }

    static let inferredCases: [ConformanceCase] = [
        c("an inferred step gives new attributes their default or nil, keeps renamed ones and replaces nil in one no longer optional") { ctx in
            let store = try seeded(ctx, PeopleV1.schema(), PeopleSeed.writeV1)
            let stack = try migrated(ctx, store, peopleV2Stack())
            try ctx.expectEqual(try describePeopleV2(stack), [
                "Ann|34|Annie|ann@x|1.5|nil|pets:Fido,Rex|vets:",
                "Bob|15|none|bob@x|1.5|nil|pets:Tom|vets:",
                "Cid|52|none|cid@x|1.5|nil|pets:|vets:",
            ], "people after the inferred step V1 → V2 (email renamed contact, nickname nil → \"none\", score and note new)")
        },
        c("an inferred step keeps, renames, adds and removes relationships with their inverses") { ctx in
            let store = try seeded(ctx, PeopleV1.schema(), PeopleSeed.writeV1)
            let stack = try migrated(ctx, store, peopleV2Stack())
            try ctx.expectEqual(try describePetsV2(stack), ["Fido|owner:Ann|doctor:nil", "Rex|owner:Ann|doctor:Dr. Who", "Tom|owner:Bob|doctor:Dr. Who"],
                                "pets after V1 → V2 (owner kept, vet renamed doctor)")
            try ctx.expectEqual(try describeVetsV2(stack), ["Dr. No|patients:|clients:", "Dr. Who|patients:Rex,Tom|clients:"],
                                "vets after V1 → V2 (patients is the inverse of the renamed doctor; clients is new)")
            try ctx.expectEqual(try stack.fetchAll(From<PeopleV2.Toy>().orderBy(.ascending(\.$name))).map(\.name), ["Ball", "Mouse", "Rope", "Stick"],
                                "toys after V1 → V2 (their relationship to pets removed on both sides)")
            try stack.perform(synchronous: { t in
                let cid = try t.fetchOne(From<PeopleV2.Person>().where(\.$name == "Cid"))
                let no = try t.fetchOne(From<PeopleV2.Vet>().where(\.$name == "Dr. No"))
                let tom = try t.fetchOne(From<PeopleV2.Pet>().where(\.$name == "Tom"))
                cid?.vets = Set([no].compactMap { $0 })
                tom?.doctor = no
            })
            try ctx.expectEqual(try describeVetsV2(stack), ["Dr. No|patients:Tom|clients:Cid", "Dr. Who|patients:Rex|clients:"],
                                "vets after setting Cid's vets and Tom's doctor (both inverses kept up)")
        },
        c("an inferred step adds an index and a unique constraint that hold for the migrated data") { ctx in
            let store = try seeded(ctx, PeopleV1.schema(), PeopleSeed.writeV1)
            let stack = try migrated(ctx, store, peopleV2Stack())
            try ctx.expectEqual(try stack.fetchAll(From<PeopleV2.Person>().where(\.$age == 15)).map(\.name), ["Bob"], "people aged 15 (indexed)")
            try ctx.expectEqual(try stack.fetchAll(From<PeopleV2.Person>().where(\.$age > 30).orderBy(.ascending(\.$age))).map(\.name), ["Ann", "Cid"], "people older than 30")
            try APICases.expectCoreStoreError(ctx, "inserting a second person with contact ann@x", matching: isUniqueViolation) {
                try stack.perform(synchronous: { t in t.create(Into<PeopleV2.Person>()).contact = "ann@x" })
            }
            try stack.perform(synchronous: { t in t.create(Into<PeopleV2.Person>()).contact = "dan@x" })
            try ctx.expectEqual(try stack.fetchCount(From<PeopleV2.Person>()), 4, "people after one refused and one accepted insert")
        },
        c("an attribute-only inferred step keeps every value and adds an index") { ctx in
            let store = try seeded(ctx, BooksV1.schema(), BooksSeed.writeV1)
            let stack = try migrated(ctx, store, DataStack(BooksV1.schema(), BooksV2.schema()))
            try ctx.expectEqual(try BooksSeed.readV2(stack), ["Dune:5:50", "Emma:4:50", "Ulysses:4:50"], "books after V1 → V2 (pages new, default 50)")
            try ctx.expectEqual(try stack.fetchAll(From<BooksV2.Book>().where(\.$rating == 4).orderBy(.ascending(\.$title))).map(\.title), ["Emma", "Ulysses"], "books rated 4 (indexed)")
            try stack.perform(synchronous: { t in
                let book = t.create(Into<BooksV2.Book>())
                book.title = "Walden"; book.rating = 3
            })
            try ctx.expectEqual(try BooksSeed.readV2(stack).last, "Walden:3:50", "a book written after the migration")
        },
    ]

    static func isUniqueViolation(_ error: CoreStoreError) -> Bool {
        if case .storageFailure(.uniqueConstraintViolation) = error { return true }
        return false
    }
}
