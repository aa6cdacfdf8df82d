// Generated from docs/MIGRATIONS.md by scripts/extract-doc-snippets.sh: edit the document, then run
// the script. Each method is one code block of the document (or a run of blocks of one name), verbatim.
import Foundation
import CoreStore
import CoreStoreSQLite

extension MigrationsSnippets {
    /// docs/MIGRATIONS.md, the `declaringVersions` block.
    func declaringVersions() async throws {
        enum V1 { final class Person: CoreStoreObject { @Field.Stored("name") var name = ""; @Field.Stored("age") var age = 0 } }
        enum V2 {
            final class Person: CoreStoreObject {
                @Field.Stored("fullName", previousVersionKeyPath: "name") var fullName = ""
                @Field.Stored("email") var email: String?
            }
        }

        let dataStack = DataStack(
            CoreStoreSchema(modelVersion: "V1", entities: [Entity<V1.Person>("Person")]),
            CoreStoreSchema(modelVersion: "V2", entities: [Entity<V2.Person>("Person")]),
            migrationChain: ["V1", "V2"]
        )
        print(dataStack.modelVersion)   // "V2", the current version
    }

    /// docs/MIGRATIONS.md, the `addingAStore` block.
    func addingAStore() async throws {
        let progress = dataStack.addStorage(SQLiteStore(fileName: "App.sqlite")) { result in
            // on the main queue: .success(storage) once migrated and added, or .failure(CoreStoreError)
            print(result)
        }
        // nil: nothing to migrate. Otherwise one unit per step; observe fractionCompleted.
        print(progress?.fractionCompleted ?? 1)

        for try await state in dataStack.async.addStorage(SQLiteStore(fileName: "App.sqlite")) {
            print(state.fractionCompleted)   // .migrating(storage:progressObject:) …, then .finished(storage:migrationRequired:)
        }
    }

    /// docs/MIGRATIONS.md, the `customMappings` block.
    func customMappings() async throws {
        let store = SQLiteStore(fileName: "App.sqlite", migrationMappingProviders: [
            CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
                .transformEntity(sourceEntity: "Person", destinationEntity: "Person") { source, createDestination in
                    guard source["isDeleted"] as? Bool != true else { return }        // dropped
                    let person = createDestination()
                    person.enumerateAttributes { attribute, sourceAttribute in
                        if let sourceAttribute { person[attribute] = source[sourceAttribute] }
                    }
                    person["fullName"] = "\(source["first"] as! String) \(source["last"] as! String)"
                },
                .copyEntity(sourceEntity: "Pet", destinationEntity: "Animal"),         // renamed, inferred
                .deleteEntity("Cache"),
                .insertEntity("Settings"),
            ])
        ])
        dataStack.addStorage(store) { result in print(result) }
    }

}
