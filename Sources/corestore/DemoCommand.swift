import ArgumentParser
import CoreStore
import CoreStoreSQLite
import CoreStorePostgres
import Foundation

/// `corestore demo`: a tour of models, transactions and fetches on an embedded store.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Tour models, transactions and fetches on an embedded store.",
        discussion: """
            Creates (or migrates, then reuses) a SQLite store and walks through models with \
            inheritance and relationships, transactions, fetches and queries, importing, list \
            and object monitors, and a migration; the default subcommand.

            Examples:
              corestore demo
              corestore demo --path /tmp/demo.sqlite && corestore inspect /tmp/demo.sqlite
              corestore demo --in-memory --verbose
              corestore demo --postgres postgres://me@localhost/app
            """
    )

    @Flag(name: .long, help: "Log everything the framework does (trace level).")
    var verbose = false

    @Option(name: .long, help: "The SQLite file to use (default: the default SQLiteStore location, under $XDG_DATA_HOME or ~/.local/share).")
    var path: String?

    @Flag(name: .long, help: "Use an InMemoryStore instead of a SQLite file.")
    var inMemory = false

    @Option(name: .long, help: "Use a PostgresStore in this database instead of a SQLite file (postgres://user[:password]@host[:port]/database); its tables go in the schema 'corestore_demo'.")
    var postgres: String?

    func validate() throws {
        if [path != nil, inMemory, postgres != nil].filter({ $0 }).count > 1 {
            throw ValidationError("choose one of --path, --in-memory and --postgres")
        }
    }

    func run() async throws {
        CoreStoreDefaults.logger = DefaultLogger(minimumLevel: verbose ? .trace : .warning)
        let dataStack = DataStack(DemoModel.schema)
        let store: any StorageInterface
        var mainFile: URL?
        if inMemory {
            store = try dataStack.addStorageAndWait(InMemoryStore())
        } else if let postgres {
            store = try dataStack.addStorageAndWait(PostgresStore(url: postgres, schemaName: "corestore_demo"))
        } else {
            let fileURL = path.map { URL(fileURLWithPath: $0) } ?? SQLiteStore.defaultFileURL
            mainFile = fileURL
            store = try dataStack.addStorageAndWait(SQLiteStore(fileURL: fileURL, localStorageOptions: .recreateStoreOnModelMismatch))
        }
        print("CoreStore demo — model '\(dataStack.modelVersion)' on \(store.storeDescription)\n")

        section("0. The store keeps what earlier runs saved")
        let earlier = try dataStack.fetchCount(From<DemoPerson>()) + dataStack.fetchCount(From<DemoAnimal>()) + dataStack.fetchCount(From<DemoBook>())
        let cleared = try dataStack.perform(synchronous: { transaction in
            try transaction.deleteAll(From<DemoPerson>()) + transaction.deleteAll(From<DemoAnimal>()) + transaction.deleteAll(From<DemoBook>())
        })
        print("   found \(earlier) objects from earlier runs; deleted \(cleared) to start afresh\n")

        section("1. One synchronous transaction creates people and their pets")
        let created = try dataStack.perform(synchronous: { transaction -> Int in
            let people: [(String, Int, String?)] = [("Ada", 36, "London"), ("Grace", 45, "New York"), ("Linus", 28, nil), ("Margaret", 33, "Boston")]
            for (name, age, city) in people {
                let person = transaction.create(Into<DemoPerson>())
                person.name = name
                person.age = age
                person.city = city
            }
            let ada = try transaction.fetchOne(From<DemoPerson>().where(\.$name == "Ada"))
            for (name, breed) in [("Rex", "Collie"), ("Fido", nil)] as [(String, String?)] {
                let dog = transaction.create(Into<DemoDog>())
                dog.name = name
                dog.breed = breed
                dog.owner = ada
            }
            transaction.create(Into<DemoCat>()).name = "Tom"
            return transaction.insertedObjects().count
        })
        print("   inserted \(created) objects")

        section("2. Type-safe fetches")
        let over30 = try dataStack.fetchAll(From<DemoPerson>().where(\.$age > 30).orderBy(.descending(\.$age)))
        print("   age > 30, oldest first: \(over30.map { "\($0.name) (\($0.age))" }.joined(separator: ", "))")
        let noCity = try dataStack.fetchAll(From<DemoPerson>().where(\.$city == nil))
        print("   without a city: \(noCity.map(\.name).joined(separator: ", "))")
        let some = try dataStack.fetchAll(From<DemoPerson>().where(\.$name ~= ["Ada", "Linus"]).orderBy(.ascending(\.$name)))
        print("   name IN [Ada, Linus]: \(some.map(\.name).joined(separator: ", "))")
        let page = try dataStack.fetchAll(From<DemoPerson>().orderBy(.ascending(\.$name)).tweak { $0.fetchLimit = 2; $0.fetchOffset = 1 })
        print("   page 2 (size 2) by name: \(page.map(\.name).joined(separator: ", "))")
        print("   people: \(try dataStack.fetchCount(From<DemoPerson>())), animals (abstract entity): \(try dataStack.fetchCount(From<DemoAnimal>()))")
        let animals = try dataStack.fetchAll(From<DemoAnimal>().orderBy(.ascending(\.$name)))
        print("   animals: \(animals.map { "\($0.name) [\(type(of: $0))]" }.joined(separator: ", "))")

        section("3. Relationships keep both sides in step")
        let ada = try dataStack.fetchOne(From<DemoPerson>().where(\.$name == "Ada"))
        print("   Ada's dogs: \(ada?.dogs.map(\.name).joined(separator: ", ") ?? "-")")
        try dataStack.perform(synchronous: { transaction in
            let rex = try transaction.fetchOne(From<DemoDog>().where(\.$name == "Rex"))
            rex?.owner = try transaction.fetchOne(From<DemoPerson>().where(\.$name == "Grace"))
        })
        print("   after giving Rex to Grace, Ada's dogs: \(ada?.dogs.map(\.name).joined(separator: ", ") ?? "-") (the same object, updated by the commit)")

        section("4. Unsafe transaction: commit twice, then roll back")
        let unsafe = dataStack.beginUnsafe()
        let linus = try unsafe.fetchOne(From<DemoPerson>().where(\.$name == "Linus"))
        linus?.age += 1
        try unsafe.commitAndWait()
        linus?.city = "Helsinki"
        try unsafe.commitAndWait()
        linus?.age = 99
        unsafe.rollback()
        let stored = try dataStack.fetchOne(From<DemoPerson>().where(\.$name == "Linus"))
        print("   Linus is \(stored?.age ?? 0) in \(stored?.city ?? "-") (the rolled-back 99 was never saved)")

        section("5. Cancelled and failing transactions save nothing")
        do {
            try dataStack.perform(synchronous: { transaction in
                transaction.create(Into<DemoPerson>()).name = "Ghost"
                try transaction.cancel()
            })
        } catch {
            print("   cancel → \(error)")
        }
        print("   people named Ghost: \(try dataStack.fetchCount(From<DemoPerson>().where(\.$name == "Ghost")))")

        section("6. Delete rules")
        let deleted = try dataStack.perform(synchronous: { transaction in
            try transaction.deleteAll(From<DemoPerson>().where(\.$name == "Grace"))
        })
        print("   deleted \(deleted) person; her dogs cascade: \(try dataStack.fetchCount(From<DemoDog>())) dog(s) left")

        section("7. Queries through relationships")
        let ownersOfDogs = try dataStack.fetchAll(From<DemoPerson>().where((\.$dogs ~ \.$name).any() == "Fido"))
        print("   people with a dog named Fido: \(ownersOfDogs.map(\.name).joined(separator: ", "))")
        let dogsOfAdults = try dataStack.fetchAll(From<DemoDog>().where((\.$owner ~ \.$age) >= 30).orderBy(.ascending(\.$name)))
        print("   dogs whose owner is 30 or older: \(dogsOfAdults.map(\.name).joined(separator: ", "))")
        let nameMatch = try dataStack.fetchAll(From<DemoPerson>().where(Where(\.$name, hasPrefix: "m", options: .caseInsensitive)))
        print("   names starting with m/M: \(nameMatch.map(\.name).joined(separator: ", "))")

        section("8. Bad input gets a clear error")
        do {
            _ = try dataStack.fetchAll(From<DemoPerson>(), OrderBy<DemoPerson>(.ascending("shoeSize")))
        } catch {
            print("   \(error)")
        }

        try await importBooks(dataStack)
        try await watchChanges(dataStack)
        try await migrateContacts(besides: mainFile)
        print("\nDone.")
    }

    private func section(_ title: String) {
        print(title)
    }
}
