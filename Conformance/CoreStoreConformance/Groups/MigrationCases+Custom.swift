import Foundation
import CoreStore
import CoreStoreStorage

/// Custom steps "V2" → "V3" of the people: `.transformEntity`, `.copyEntity`, `.deleteEntity`,
/// `.insertEntity` and `inferredTransformation`.
extension MigrationCases {
    typealias CustomMapping = CustomSchemaMappingProvider.CustomMapping

    /// A stack of people "V2" and "V3".
    static func peopleV3Stack() -> DataStack { DataStack(PeopleV2.schema(), PeopleV3.schema()) }

    /// The step "V2" → "V3" with `Vet` copied to `Doctor` and `mappings`.
    static func toV3(_ mappings: [CustomMapping]) -> CustomSchemaMappingProvider {
        CustomSchemaMappingProvider(from: "V2", to: "V3", entityMappings: Set(mappings + [.copyEntity(sourceEntity: "Vet", destinationEntity: "Doctor")]))
    }

    /// A store of people "V2" migrated to "V3" with `provider`; fails unless the step is forecast
    /// as heavyweight first.
    static func migratedToV3(_ ctx: ConformanceContext, _ provider: CustomSchemaMappingProvider) throws -> DataStack {
        let store = try seeded(ctx, PeopleV2.schema(), PeopleSeed.writeV2)
        try ctx.expectEqual(try forecast(ctx, store, peopleV3Stack(), providers: [provider]), [.heavyweight(sourceVersion: "V2", destinationVersion: "V3")],
                            "forecast of a step with a CustomSchemaMappingProvider")
        return try migrated(ctx, store, peopleV3Stack(), providers: [provider])
    }

    /// Copies every attribute the destination infers from the source, the way the README's
    /// transformer does (`enumerateAttributes` of the destination, subscripts by description).
    static func copyAttributes(_ source: UnsafeSourceObject, to destination: UnsafeDestinationObject) {
        destination.enumerateAttributes { attribute, sourceAttribute in
            if let sourceAttribute { destination[attribute] = source[sourceAttribute] }
        }
    }

    /// The people of a "V3" stack as `name|age|nickname|contact|score|note|displayName|pets|vets`.
    static func describePeopleV3(_ stack: DataStack) throws -> [String] {
        try stack.fetchAll(From<PeopleV3.Person>().orderBy(.ascending(\.$name))).map { p in
            "\(p.name)|\(p.age)|\(p.nickname)|\(p.contact)|\(p.score)|\(p.note ?? "nil")|\(p.displayName)|pets:\(names(p.pets.map(\.name)))|vets:\(names(p.vets.map(\.name)))"
        }
    }

    /// The pets of a "V3" stack as `name|owner|doctor`, by name.
    static func describePetsV3(_ stack: DataStack) throws -> [String] {
        try stack.fetchAll(From<PeopleV3.Pet>().orderBy(.ascending(\.$name))).map { p in
            "\(p.name)|owner:\(p.owner?.name ?? "nil")|doctor:\(p.doctor?.name ?? "nil")"
        }
    }

    /// The doctors of a "V3" stack as `name|patients|clients`, by name.
    static func describeDoctorsV3(_ stack: DataStack) throws -> [String] {
        try stack.fetchAll(From<PeopleV3.Doctor>().orderBy(.ascending(\.$name))).map { d in
            "\(d.name)|patients:\(names(d.patients.map(\.name)))|clients:\(names(d.clients.map(\.name)))"
        }
    }

    /// Fails unless the store itself — not only the objects read from it — holds no reference
    /// to the dropped Bob and Fido: predicates on relationships are answered by the store.
    static func expectNoDanglingPeopleV3(_ ctx: ConformanceContext, _ stack: DataStack) throws {
        try ctx.expectEqual(try stack.fetchAll(From<PeopleV3.Pet>().where(\.$owner == nil)).map(\.name), ["Tom"], "pets whose owner is nil")
        try ctx.expectEqual(try stack.fetchAll(From<PeopleV3.Person>().where((\PeopleV3.Person.$pets).count() == 1)).map(\.name), ["Ann"], "people with exactly one pet")
        let counts = try stack.fetchAll(From<PeopleV3.Doctor>().where((\PeopleV3.Doctor.$clients).count() == 0).orderBy(.ascending(\.$name))).map(\.name)
        try ctx.expectEqual(counts, ["Dr. No"], "doctors without clients")
    }

    /// The "V2" people, pets and vets of ``PeopleSeed`` as they read in "V3" when nothing is dropped.
    static let unchangedPeopleV3 = [
        "Ann|34|Annie|ann@x|3.0|vip||pets:Fido,Rex|vets:Dr. Who",
        "Bob|15|none|bob@x|1.0|nil||pets:Tom|vets:Dr. No,Dr. Who",
        "Cid|52|none|cid@x|2.0|nil||pets:|vets:",
    ]
    static let unchangedPetsV3 = ["Fido|owner:Ann|doctor:nil", "Rex|owner:Ann|doctor:Dr. Who", "Tom|owner:Bob|doctor:Dr. Who"]
    static let unchangedDoctorsV3 = ["Dr. No|patients:|clients:Bob", "Dr. Who|patients:Rex,Tom|clients:Ann,Bob"]

    static let customCases: [ConformanceCase] = [
        c("transformEntity computes an attribute and drops objects; relationships to dropped objects are gone on both sides") { ctx in
            let stack = try migratedToV3(ctx, toV3([
                .transformEntity(sourceEntity: "Person", destinationEntity: "Person") { source, createDestination in
                    guard let age = source["age"] as? Int64, age >= 18 else { return }
                    let destination = createDestination()
                    copyAttributes(source, to: destination)
                    destination["displayName"] = "\(source["name"] as? String ?? "?") (\(age))"
                },
                .transformEntity(sourceEntity: "Pet", destinationEntity: "Pet") { source, createDestination in
                    guard source["name"] as? String != "Fido" else { return }
                    copyAttributes(source, to: createDestination())
                },
            ]))
            try ctx.expectEqual(try describePeopleV3(stack), [
                "Ann|34|Annie|ann@x|3.0|vip|Ann (34)|pets:Rex|vets:Dr. Who",
                "Cid|52|none|cid@x|2.0|nil|Cid (52)|pets:|vets:",
            ], "people after dropping the minors and Fido (Ann's pets no longer hold Fido)")
            try ctx.expectEqual(try describePetsV3(stack), ["Rex|owner:Ann|doctor:Dr. Who", "Tom|owner:nil|doctor:Dr. Who"],
                                "pets after dropping Bob and Fido (Tom's owner was Bob)")
            try ctx.expectEqual(try describeDoctorsV3(stack), ["Dr. No|patients:|clients:", "Dr. Who|patients:Rex,Tom|clients:Ann"],
                                "doctors after dropping Bob and Fido (their clients no longer hold Bob)")
            try expectNoDanglingPeopleV3(ctx, stack)
        },
        c("copyEntity renames an entity with its records and both sides of its relationships") { ctx in
            let stack = try migratedToV3(ctx, toV3([]))
            try ctx.expectEqual(try describeDoctorsV3(stack), unchangedDoctorsV3, "doctors copied from vets")
            try ctx.expectEqual(try describePetsV3(stack), unchangedPetsV3, "pets after Vet → Doctor")
            try ctx.expectEqual(try describePeopleV3(stack), unchangedPeopleV3, "people after Vet → Doctor (displayName new, empty)")
            try ctx.expectEqual(try stack.fetchCount(From<PeopleV3.Toy>()), 4, "toys (copied by inference)")
        },
        c("deleteEntity empties an entity the new version keeps") { ctx in
            let stack = try migratedToV3(ctx, toV3([.deleteEntity("Toy")]))
            try ctx.expectEqual(try stack.fetchCount(From<PeopleV3.Toy>()), 0, "toys after .deleteEntity(\"Toy\")")
            try ctx.expectEqual(try describePeopleV3(stack), unchangedPeopleV3, "people next to a deleted entity")
            try ctx.expectEqual(try describePetsV3(stack), unchangedPetsV3, "pets next to a deleted entity")
            try stack.perform(synchronous: { t in t.create(Into<PeopleV3.Toy>()).name = "Kite" })
            try ctx.expectEqual(try stack.fetchAll(From<PeopleV3.Toy>()).map(\.name), ["Kite"], "toys written after the migration")
        },
        c("insertEntity starts an entity empty, new or not") { ctx in
            let stack = try migratedToV3(ctx, toV3([.insertEntity("Toy"), .insertEntity("Tag")]))
            try ctx.expectEqual(try stack.fetchCount(From<PeopleV3.Toy>()), 0, "toys after .insertEntity(\"Toy\") (the V2 toys are not copied)")
            try ctx.expectEqual(try stack.fetchCount(From<PeopleV3.Tag>()), 0, "tags after .insertEntity(\"Tag\")")
            try ctx.expectEqual(try describeDoctorsV3(stack), unchangedDoctorsV3, "doctors next to inserted entities")
            try stack.perform(synchronous: { t in t.create(Into<PeopleV3.Tag>()).label = "new" })
            try ctx.expectEqual(try stack.fetchAll(From<PeopleV3.Tag>()).map(\.label), ["new"], "tags written after the migration")
        },
        c("CustomMapping.inferredTransformation copies every attribute and relationship") { ctx in
            let stack = try migratedToV3(ctx, toV3([
                .transformEntity(sourceEntity: "Person", destinationEntity: "Person", transformer: CustomMapping.inferredTransformation),
            ]))
            try ctx.expectEqual(try describePeopleV3(stack), unchangedPeopleV3, "people after inferredTransformation")
            try ctx.expectEqual(try describeDoctorsV3(stack), unchangedDoctorsV3, "doctors (clients are the transformed people)")
            try ctx.expectEqual(try describePetsV3(stack), unchangedPetsV3, "pets (owners are the transformed people)")
        },
    ]
}
