import Foundation
import Testing
@testable import CoreStore
import CoreStoreLMDB
import CoreStoreLevelDB
import CoreStoreSQLite

/// Two versions of a contact book, as an app ships them.
enum SmokeV1 {
    final class Contact: CoreStoreObject {
        @Field.Stored("first") var first: String = ""
        @Field.Stored("last") var last: String = ""
        @Field.Relationship("mentor") var mentor: Contact?
        @Field.Relationship("mentees", inverse: \Contact.$mentor) var mentees: Set<Contact>
    }
    static let schema = CoreStoreSchema(modelVersion: "S1", entities: [Entity<Contact>("Contact")])
}

enum SmokeV2 {
    final class Contact: CoreStoreObject {
        @Field.Stored("name") var name: String = ""
        @Field.Stored("stars", previousVersionKeyPath: "rating") var stars: Int = 3
        @Field.Relationship("mentor") var mentor: Contact?
        @Field.Relationship("mentees", inverse: \Contact.$mentor) var mentees: Set<Contact>
    }
    static let schema = CoreStoreSchema(modelVersion: "S2", entities: [Entity<Contact>("Contact")])
}

@Suite("Migrations through the DataStack (smoke)")
struct MigrationSmokeTests {
    enum Kind: String, CaseIterable, Sendable { case lmdb, leveldb, sqlite }

    func store(_ kind: Kind, _ url: URL, providers: [any SchemaMappingProvider] = [], options: LocalStorageOptions = .none) -> any LocalStorage {
        switch kind {
        case .lmdb: LMDBStore(fileURL: url, migrationMappingProviders: providers, localStorageOptions: options)
        case .leveldb: LevelDBStore(fileURL: url, migrationMappingProviders: providers, localStorageOptions: options)
        case .sqlite: SQLiteStore(fileURL: url, migrationMappingProviders: providers, localStorageOptions: options)
        }
    }

    @Test("A custom step transforms and drops objects; the friends of dropped objects lose them", arguments: Kind.allCases)
    func customStep(kind: Kind) async throws {
        let url = try TestStoreFiles.newFile(extension: kind.rawValue)
        do {
            let stack = DataStack(SmokeV1.schema)
            try stack.addStorageAndWait(store(kind, url))
            try stack.perform(synchronous: { transaction in
                var made: [SmokeV1.Contact] = []
                for i in 0..<2_500 {
                    let contact = transaction.create(Into<SmokeV1.Contact>())
                    contact.first = "F\(i)"
                    contact.last = i % 5 == 0 ? "" : "L\(i)"
                    contact.mentor = made.last
                    made.append(contact)
                }
            })
        }
        let mapping = CustomSchemaMappingProvider(from: "S1", to: "S2", entityMappings: [
            .transformEntity(sourceEntity: "Contact", destinationEntity: "Contact") { source, create in
                guard let last = source["last"] as? String, !last.isEmpty else { return }
                create()["name"] = "\(source["first"] as! String) \(last)"
            },
        ])
        let stack = DataStack(SmokeV1.schema, SmokeV2.schema, migrationChain: ["S1", "S2"])
        let states = try await addReportingProgress(store(kind, url, providers: [mapping]), to: stack)
        #expect(states.last == true && states.dropLast().allSatisfy { !$0 } && states.count >= 2)
        let contacts = try stack.fetchAll(From<SmokeV2.Contact>())
        #expect(contacts.count == 2_000)
        #expect(Set(contacts.map(\.stars)) == [3])
        let f6 = try #require(try stack.fetchOne(From<SmokeV2.Contact>().where(\.$name == "F6 L6")))
        #expect(f6.mentor == nil, "F5 was dropped")
        #expect(f6.mentees.map(\.name) == ["F7 L7"])
        let f4 = try #require(try stack.fetchOne(From<SmokeV2.Contact>().where(\.$name == "F4 L4")))
        #expect(f4.mentees.isEmpty, "F5 was dropped")
        #expect(f4.mentor?.name == "F3 L3")
        #expect(try forecast(store(kind, URL(fileURLWithPath: url.path + "-missing")), stack) == [])
    }

    func forecast<S: LocalStorage>(_ storage: S, _ stack: DataStack) throws -> [MigrationType] {
        try stack.requiredMigrationsForStorage(storage)
    }

    /// Forecasts, checks that `addStorageAndWait` refuses, then adds through the async stream;
    /// returns `isCompleted` of every state reported.
    func addReportingProgress<S: LocalStorage>(_ storage: S, to stack: DataStack) async throws -> [Bool] {
        #expect(try stack.requiredMigrationsForStorage(storage) == [.heavyweight(sourceVersion: "S1", destinationVersion: "S2")])
        #expect(throws: CoreStoreError.self) { try stack.addStorageAndWait(storage) }
        var states: [Bool] = []
        for try await progress in stack.async.addStorage(storage) {
            states.append(progress.isCompleted)
        }
        return states
    }

    @Test("A lightweight step runs synchronously only when allowed", arguments: Kind.allCases)
    func lightweightStep(kind: Kind) throws {
        let url = try TestStoreFiles.newFile(extension: kind.rawValue)
        do {
            let stack = DataStack(SmokeV1.schema)
            try stack.addStorageAndWait(store(kind, url))
            try stack.perform(synchronous: { transaction in
                transaction.create(Into<SmokeV1.Contact>()).first = "Ada"
            })
        }
        enum SmokeV1b {
            final class Contact: CoreStoreObject {
                @Field.Stored("first") var first: String = ""
                @Field.Stored("last") var last: String = ""
                @Field.Stored("rating") var rating: Int = 7
                @Field.Relationship("mentor") var mentor: Contact?
                @Field.Relationship("mentees", inverse: \Contact.$mentor) var mentees: Set<Contact>
            }
        }
        let schema = CoreStoreSchema(modelVersion: "S1b", entities: [Entity<SmokeV1b.Contact>("Contact")])
        let stack = DataStack(SmokeV1.schema, schema, migrationChain: ["S1", "S1b"])
        #expect {
            try stack.addStorageAndWait(store(kind, url))
        } throws: { error in
            guard case .asynchronousMigrationRequired = error as? CoreStoreError else { return false }
            return true
        }
        try stack.addStorageAndWait(store(kind, url, options: .allowSynchronousLightweightMigration))
        let ada = try #require(try stack.fetchOne(From<SmokeV1b.Contact>()))
        #expect(ada.first == "Ada" && ada.rating == 7)
    }
}
