// Generated from README.md by scripts/extract-doc-snippets.sh: edit the document, then run
// the script. Each method is one code block of the document (or a run of blocks of one name), verbatim.
import Foundation
import CoreStore
import CoreStoreInMemory
import CoreStoreSQLite
import CoreStorePostgres

extension ReadmeSnippets {
    /// README.md, the `quickStart` block.
    func quickStart() async throws {

        final class Dog: CoreStoreObject {
            @Field.Stored("name") var name: String = ""
            @Field.Relationship("master") var master: Person?
        }

        final class Person: CoreStoreObject {
            @Field.Stored("name") var name: String = ""
            @Field.Stored("age") var age: Int = 0
            @Field.Relationship("pets", inverse: \Dog.$master) var pets: Set<Dog>
        }

        let dataStack = DataStack(
            CoreStoreSchema(modelVersion: "V1", entities: [Entity<Person>("Person"), Entity<Dog>("Dog")])
        )
        try dataStack.addStorageAndWait(InMemoryStore())

        try await dataStack.async.perform { transaction in
            let person = transaction.create(Into<Person>())
            person.name = "John Smith"
            person.age = 42
            let dog = transaction.create(Into<Dog>())
            dog.name = "Rex"
            dog.master = person            // person.pets now contains Rex as well
        }

        let people = try dataStack.fetchAll(
            From<Person>()
                .where(\.$age > 30)
                .orderBy(.ascending(\.$name), .descending(\.$age))
                .tweak { $0.fetchLimit = 10 }
        )
        print(people.map(\.name))                // ["John Smith"]
    }

    /// README.md, the `fetchingAndQuerying` block.
    func fetchingAndQuerying() async throws {
        // Typed key paths, through relationships, with quantifiers over to-many
        let johnsDogs = try dataStack.fetchAll(From<Dog>().where((\.$master ~ \.$name) == "John Smith"))
        let rexOwners = try dataStack.fetchAll(From<Person>().where((\.$pets ~ \.$name).any() == "Rex"))
        let packOwners = try dataStack.fetchAll(From<Person>().where((\Person.$pets).count() >= 2))
        let personsDogs = try dataStack.fetchAll(From<Dog>().where(\.$master == person))  // objects and ObjectIDs
        let jos = try dataStack.fetchAll(From<Person>().where(Where(\.$name, hasPrefix: "jo", options: .caseInsensitive)))

        // Format strings, NSPredicate-style
        let olderJos = try dataStack.fetchAll(From<Person>(), Where<Person>("age > %d AND name BEGINSWITH[cd] %@", 30, "jo"))
        let rexOrNone = try dataStack.fetchAll(From<Person>().where(format: "ANY pets.name IN %@ OR pets.@count == 0", ["Rex", "Fido"]))

        // Queries: raw values and aggregates
        let oldest = try dataStack.queryValue(From<Person>().select(Int.self, .maximum(\.$age)))
        let byAge = try dataStack.queryAttributes(
            From<Person>().select(NSDictionary.self, .attribute(\.$age), .count(\.$age, as: "count")).groupBy(\.$age)
        )
        print(johnsDogs.count, rexOwners.count, packOwners.count, personsDogs.count, jos.count, olderJos.count, rexOrNone.count)
        print(oldest ?? 0, byAge)
    }

    /// README.md, the `observingChanges` block.
    func observingChanges() async throws {
        let monitor = try dataStack.monitorSectionedList(
            From<Person>().sectionBy(\.$age).where(\.$age > 30).orderBy(.ascending(\.$age), .ascending(\.$name))
        )
        monitor.addObserver(self)          // ListObserver, ListObjectObserver or ListSectionObserver
        if let first = monitor[0] {        // nil when the list is empty
            print(first.name)
        }

        let publisher = try dataStack.publishList(From<Person>().orderBy(.ascending(\.$name)))
        for await snapshot in publisher.snapshots { print(snapshot.map { $0.snapshot?.$name }) }
    }

    /// README.md, the `importing` block.
    func importing() async throws {
        final class Person: CoreStoreObject, ImportableUniqueObject {
            @Field.Stored("remoteID") var remoteID: Int = 0
            @Field.Stored("name") var name: String = ""

            typealias ImportSource = [String: Any]                       // e.g. from JSONSerialization
            static let uniqueIDKeyPath = String(keyPath: \Person.$remoteID)
            var uniqueIDValue: Int { get { remoteID } set { remoteID = newValue } }

            static func uniqueID(from source: ImportSource, in transaction: BaseDataTransaction) throws -> Int? {
                try source.importValue("id", as: Int.self)               // missing or not an Int: a clear error
            }
            func update(from source: ImportSource, in transaction: BaseDataTransaction) throws {
                name = try source.importValue("name", as: String.self)
            }
        }
        // Entity<Person>("Person", uniqueConstraints: [[\Person.$remoteID]])   (unique and indexed)

        let people = try await dataStack.async.importUniqueObjects(Into<Person>(), sourceArray: json)
        print(people.map(\.name))
    }

    /// README.md, the `migrating` block.
    func migrating() async throws {
        let dataStack = DataStack(schemaV1, schemaV2, schemaV3, migrationChain: ["V1", "V2", "V3"])
        let store = SQLiteStore(fileName: "App.sqlite", migrationMappingProviders: [
            CustomSchemaMappingProvider(from: "V2", to: "V3", entityMappings: [
                .transformEntity(sourceEntity: "Person", destinationEntity: "Person") { source, createDestination in
                    createDestination()["fullName"] = "\(source["first"] as! String) \(source["last"] as! String)"
                },
            ]),
        ])
        let steps = try dataStack.requiredMigrationsForStorage(store)
        print(steps)                             // [.lightweight(V1→V2), .heavyweight(V2→V3)]
        for try await progress in dataStack.async.addStorage(store) { print(progress.fractionCompleted) }
    }

    /// README.md, the `addingAPostgresStore` block.
    func addingAPostgresStore() async throws {
        try dataStack.addStorageAndWait(PostgresStore(url: "postgres://app@db.internal/app"))
    }

}
