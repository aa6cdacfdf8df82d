import Foundation
import CoreStore
import CoreStoreStorage

/// What transformers see and write: `UnsafeSourceObject` and `UnsafeDestinationObject`, and
/// transformers that fail.
extension MigrationCases {
    /// The error a transformer throws on purpose.
    struct TransformerFailure: Error, Equatable {
        let title: String
    }

    /// Lines written by transformers, which run on the migration's thread.
    final class Transcript: @unchecked Sendable {
        private let lock = NSLock()
        private var storage: [String] = []
        func append(_ line: String) { lock.withLock { storage.append(line) } }
        var lines: [String] { lock.withLock { storage } }
    }

    static let transformerCases: [ConformanceCase] = [
        c("UnsafeSourceObject reads attributes and relationships by key and enumerates its attributes") { ctx in
            let transcript = Transcript()
            let stack = try migratedToV3(ctx, toV3([
                .transformEntity(sourceEntity: "Person", destinationEntity: "Person") { source, createDestination in
                    var attributes: [String] = []
                    source.enumerateAttributes { attributes.append($0.name) }
                    transcript.append(attributes.joined(separator: ","))
                    let pets = (source["pets"] as? [UnsafeSourceObject]) ?? []
                    let vets = (source["vets"] as? [UnsafeSourceObject]) ?? []
                    let petOwner = (pets.first?["owner"] as? UnsafeSourceObject)?["name"] as? String
                    let destination = createDestination()
                    for key in attributes { destination[key] = source[key] }
                    destination["displayName"] = [
                        "\(source["name"] as? String ?? "?")", "\(source["age"] as? Int64 ?? -1)", "\(source["nickname"] as? String ?? "?")",
                        "\(source["score"] as? Double ?? -1)", "\(source["note"] as? String ?? "nil")",
                        "pets:\(names(pets.compactMap { $0["name"] as? String }))", "vets:\(names(vets.compactMap { $0["name"] as? String }))",
                        "owner:\(petOwner ?? "nil")", "unknown:\(source["noSuchKey"] == nil)", "value:\(source.value(of: "age").map { "\($0)" } ?? "nil")",
                    ].joined(separator: "|")
                },
            ]))
            try ctx.expectEqual(transcript.lines, Array(repeating: "name,age,nickname,contact,score,note", count: 3), "attributes each source person enumerated")
            try ctx.expectEqual(try stack.fetchAll(From<PeopleV3.Person>().orderBy(.ascending(\.$name))).map(\.displayName), [
                "Ann|34|Annie|3.0|vip|pets:Fido,Rex|vets:Dr. Who|owner:Ann|unknown:true|value:\(Value.int(34))",
                "Bob|15|none|1.0|nil|pets:Tom|vets:Dr. No,Dr. Who|owner:Bob|unknown:true|value:\(Value.int(15))",
                "Cid|52|none|2.0|nil|pets:|vets:|owner:nil|unknown:true|value:\(Value.int(52))",
            ], "what the transformer read from each source person")
            try ctx.expectEqual(try describePetsV3(stack), unchangedPetsV3, "pets after a transformer that copied every attribute by key")
        },
        c("UnsafeDestinationObject writes attributes and relationships by key, inverses kept") { ctx in
            let stack = try migratedToV3(ctx, toV3([
                .transformEntity(sourceEntity: "Person", destinationEntity: "Person") { source, createDestination in
                    let name = source["name"] as? String ?? "?"
                    let destination = createDestination()
                    copyAttributes(source, to: destination)
                    destination["displayName"] = name.uppercased()
                    guard name == "Ann" else { return }
                    let buddy = createDestination()
                    buddy["name"] = "Ann's buddy"
                    buddy["age"] = 7
                    buddy["contact"] = "buddy@x"
                    buddy["pets"] = source["pets"]
                    buddy["vets"] = source["vets"]
                },
            ]))
            try ctx.expectEqual(try describePeopleV3(stack), [
                "Ann|34|Annie|ann@x|3.0|vip|ANN|pets:|vets:Dr. Who",
                "Ann's buddy|7|none|buddy@x|1.5|nil||pets:Fido,Rex|vets:Dr. Who",
                "Bob|15|none|bob@x|1.0|nil|BOB|pets:Tom|vets:Dr. No,Dr. Who",
                "Cid|52|none|cid@x|2.0|nil|CID|pets:|vets:",
            ], "people after a transformer created Ann's buddy and gave it Ann's pets and vets (Ann's pets moved: a pet has one owner)")
            try ctx.expectEqual(try describePetsV3(stack), ["Fido|owner:Ann's buddy|doctor:nil", "Rex|owner:Ann's buddy|doctor:Dr. Who", "Tom|owner:Bob|doctor:Dr. Who"],
                                "pets whose owner the transformer changed")
            try ctx.expectEqual(try describeDoctorsV3(stack), ["Dr. No|patients:|clients:Bob", "Dr. Who|patients:Rex,Tom|clients:Ann,Ann's buddy,Bob"],
                                "doctors (clients is the inverse of the vets the transformer set)")
        },
        c("a transformer writing a value of the wrong type fails with migrationFailed and the store keeps its version") { ctx in
            let store = try seeded(ctx, PeopleV2.schema(), PeopleSeed.writeV2)
            let provider = toV3([
                .transformEntity(sourceEntity: "Person", destinationEntity: "Person") { source, createDestination in
                    let destination = createDestination()
                    copyAttributes(source, to: destination)
                    destination["age"] = "old"
                },
            ])
            let addition = try add(ctx, peopleV3Stack(), try local(ctx, over: store, providers: [provider]))
            let error = try expectFailure(ctx, addition.result, "a migration whose transformer writes a string into an integer", expected: "migrationFailed") {
                if case .migrationFailed(_, "V2", "V3", _) = $0 { return true }
                return false
            }
            try ctx.expect(error.description.contains("age"), "the migrationFailed error does not name the attribute: \(error)")
            try ctx.expectEqual(try withStack(ctx, over: store, PeopleV2.schema(), describePeopleV2), [
                "Ann|34|Annie|ann@x|3.0|vip|pets:Fido,Rex|vets:Dr. Who",
                "Bob|15|none|bob@x|1.0|nil|pets:Tom|vets:Dr. No,Dr. Who",
                "Cid|52|none|cid@x|2.0|nil|pets:|vets:",
            ], "people read by a V2 stack after the failed migration")
        },
        c("a throwing transformer fails with userError and the store keeps its version and data") { ctx in
            let store = try seeded(ctx, BooksV1.schema(), BooksSeed.writeV1)
            let provider = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
                .transformEntity(sourceEntity: "Book", destinationEntity: "Book") { source, createDestination in
                    let title = source["title"] as? String ?? ""
                    if title == "Emma" { throw TransformerFailure(title: title) }
                    try CustomMapping.inferredTransformation(source, createDestination)
                },
            ])
            let addition = try add(ctx, DataStack(BooksV1.schema(), BooksV2.schema()), try local(ctx, over: store, providers: [provider]))
            try expectFailure(ctx, addition.result, "a migration whose transformer throws", expected: "userError(TransformerFailure(title: \"Emma\"))") {
                if case .userError(let underlying) = $0 { return (underlying as? TransformerFailure) == TransformerFailure(title: "Emma") }
                return false
            }
            try expectBooksKeptV1(ctx, store, "after the transformer threw")
        },
        c("a type change migrates with a transformer that converts the value") { ctx in
            let store = try seeded(ctx, BooksV1.schema(), BooksSeed.writeV1)
            let provider = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
                .transformEntity(sourceEntity: "Book", destinationEntity: "Book") { source, createDestination in
                    let destination = createDestination()
                    destination["title"] = source["title"]
                    destination["rating"] = String(repeating: "*", count: Int(source["rating"] as? Int64 ?? 0))
                },
            ])
            let stack = try migrated(ctx, store, DataStack(BooksV1.schema(), BooksRetyped.schema()), providers: [provider])
            let books = try stack.fetchAll(From<BooksRetyped.Book>().orderBy(.ascending(\.$title))).map { "\($0.title):\($0.rating)" }
            try ctx.expectEqual(books, ["Dune:*****", "Emma:****", "Ulysses:****"], "books whose integer rating became a string")
        },
    ]
}
