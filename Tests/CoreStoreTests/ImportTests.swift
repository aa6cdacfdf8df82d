import Foundation
import Testing
@testable import CoreStore

/// A contact imported from dictionaries, unique by `email`, that may adopt a dog by name.
final class Contact: CoreStoreObject, ImportableUniqueObject {
    @Field.Stored("email") var email: String = ""
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("dogs", inverse: \ContactDog.$owner) var dogs: Set<ContactDog>

    typealias ImportSource = [String: Any]
    static let uniqueIDKeyPath = String(keyPath: \Contact.$email)
    var uniqueIDValue: String {
        get { email }
        set { email = newValue }
    }

    static func uniqueID(from source: ImportSource, in transaction: BaseDataTransaction) throws -> String? {
        try source.importValue("email", as: String.self)
    }

    func update(from source: ImportSource, in transaction: BaseDataTransaction) throws {
        name = try source.importValue("name", as: String.self)
        if let dogs = source["dogs"] as? [[String: Any]] {
            self.dogs = Set(try transaction.importUniqueObjects(Into<ContactDog>(), sourceArray: dogs))
        }
        if source["fail"] != nil { throw ContactImportError() }
    }
}

/// A dog unique by name; importing one with `fail` throws after it was filled in.
final class ContactDog: CoreStoreObject, ImportableUniqueObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Relationship("owner") var owner: Contact?

    typealias ImportSource = [String: Any]
    static let uniqueIDKeyPath = String(keyPath: \ContactDog.$name)
    var uniqueIDValue: String {
        get { name }
        set { name = newValue }
    }

    static func uniqueID(from source: ImportSource, in transaction: BaseDataTransaction) throws -> String? {
        try source.importValue("name", as: String.self)
    }

    func update(from source: ImportSource, in transaction: BaseDataTransaction) throws {
        age = try source.importOptionalValue("age", as: Int.self) ?? age
        if source["fail"] != nil { throw ContactImportError() }
    }
}

struct ContactImportError: Error {}

@Suite("Importing")
struct ImportTests {
    static func makeStack(_ kind: StoreKind) throws -> DataStack {
        let stack = DataStack(CoreStoreSchema(modelVersion: "I1", entities: [
            Entity<Contact>("Contact", uniqueConstraints: [[\Contact.$email]]),
            Entity<ContactDog>("ContactDog", uniqueConstraints: [[\ContactDog.$name]]),
        ]))
        try stack.addStorageAndWait(kind.makeStore())
        return stack
    }

    @Test func fieldKeyPathsNameTheirStoredKey() {
        #expect(String(keyPath: \Contact.$email) == "email")
        #expect(Contact.uniqueIDKeyPath == "email")
    }

    @Test(arguments: [StoreKind.inMemory, .sqlite])
    func nestedImportsBuildRelationships(_ kind: StoreKind) throws {
        let stack = try Self.makeStack(kind)
        try stack.perform(synchronous: { t in
            _ = try t.importUniqueObjects(Into<Contact>(), sourceArray: [
                ["email": "a@x", "name": "Ann", "dogs": [["name": "Rex", "age": 3], ["name": "Fido"]]],
                ["email": "b@x", "name": "Bob", "dogs": [["name": "Rex", "age": 4]]],
            ])
        })
        let dogs = try stack.fetchAll(From<ContactDog>().orderBy(.ascending(\.$name)))
        #expect(dogs.map { "\($0.name):\($0.age):\($0.owner?.name ?? "-")" } == ["Fido:0:Ann", "Rex:4:Bob"])
    }

    @Test(arguments: [StoreKind.inMemory, .sqlite])
    func aCaughtFailureOfANestedImportUndoesOnlyThatImport(_ kind: StoreKind) throws {
        let stack = try Self.makeStack(kind)
        try stack.perform(synchronous: { t in
            _ = try t.importUniqueObjects(Into<Contact>(), sourceArray: [["email": "a@x", "name": "Ann", "dogs": [["name": "Rex", "age": 3]]]])
        })
        try stack.perform(synchronous: { t in
            let ann = try #require(try t.fetchOne(From<Contact>()))
            let rex = try #require(try t.fetchOne(From<ContactDog>()))
            // Rex moves to a new contact, gets older, and the import fails: all of it is undone,
            // including the inverse side on Ann.
            #expect(throws: ContactImportError.self) {
                try t.importUniqueObjects(Into<Contact>(), sourceArray: [["email": "c@x", "name": "Cy", "dogs": [["name": "Rex", "age": 9], ["name": "Max", "fail": true]]]])
            }
            #expect(rex.age == 3)
            #expect(rex.owner === ann)
            #expect(ann.dogs == [rex])
            #expect(t.insertedObjects().isEmpty)
            #expect(!t.hasChanges)
            // A later import in the same transaction works normally.
            _ = try t.importUniqueObject(Into<Contact>(), source: ["email": "d@x", "name": "Dee"])
        })
        #expect(try stack.fetchAll(From<Contact>().orderBy(.ascending(\.$email))).map(\.name) == ["Ann", "Dee"])
        #expect(try stack.fetchAll(From<ContactDog>()).map { "\($0.name):\($0.age):\($0.owner?.name ?? "-")" } == ["Rex:3:Ann"])
    }

    @Test func anObjectDroppedByAFailedImportCountsAsDeleted() throws {
        let stack = try Self.makeStack(.inMemory)
        try stack.perform(synchronous: { t throws in
            var created: Contact?
            #expect(throws: ContactImportError.self) {
                created = try t.importUniqueObjects(Into<Contact>(), sourceArray: [["email": "a@x", "name": "Ann"]], preProcess: { mapping in
                    // Throws after the lookup but before any insert: nothing to drop yet.
                    _ = mapping
                    throw ContactImportError()
                }).first
            }
            #expect(created == nil)
            #expect(throws: ContactImportError.self) {
                try t.importUniqueObjects(Into<Contact>(), sourceArray: [["email": "b@x", "name": "Bob"], ["email": "c@x", "name": "Cy", "fail": true]])
            }
            #expect(t.insertedObjects().isEmpty)
            #expect(try t.fetchCount(From<Contact>()) == 0)
        })
        #expect(try stack.fetchCount(From<Contact>()) == 0)
    }

    @Test(arguments: [StoreKind.inMemory, .sqlite, .lmdb])
    func asyncImportsReturnTheStacksObjects(_ kind: StoreKind) async throws {
        let stack = try Self.makeStack(kind)
        let first = try await stack.async.importUniqueObjects(Into<Contact>(), sourceArray: [
            ["email": "a@x", "name": "Ann"], ["email": "b@x", "name": "Bob"],
        ])
        #expect(first.map(\.name) == ["Ann", "Bob"])
        let fetched = try stack.fetchAll(From<Contact>().orderBy(.ascending(\.$email)))
        #expect(zip(first, fetched).allSatisfy { $0 === $1 }, "the returned objects are the stack's own instances")

        let one = try await stack.async.importUniqueObject(Into<Contact>(), source: ["email": "a@x", "name": "Annie"])
        #expect(one === fetched.first)
        #expect(one?.name == "Annie")

        let dog = try await stack.async.importObject(Into<ContactDog>(), source: ["name": "Rex", "age": 2])
        #expect(dog?.cs_id()?.recordID.isTemporary == false)
        #expect(try stack.fetchOne(From<ContactDog>())?.age == 2)

        await #expect(throws: CoreStoreError.self) {
            try await stack.async.importUniqueObjects(Into<Contact>(), sourceArray: [["email": "z@x"]])
        }
        #expect(try stack.fetchCount(From<Contact>()) == 2)
    }

    @Test func dictionaryValuesConvertStrictly() throws {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(#"""
        {"int": 7, "big": 9007199254740993, "frac": 2.5, "text": "hi", "yes": true, "nothing": null,
         "list": [1], "object": {"a": 1}, "uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "url": "https://x.org/a"}
        """#.utf8)) as? [String: Any])
        #expect(try json.importValue("int", as: Int.self) == 7)
        #expect(try json.importValue("int", as: Double.self) == 7)
        #expect(try json.importValue("big", as: Int64.self) == 9_007_199_254_740_993)
        #expect(try json.importValue("frac", as: Double.self) == 2.5)
        #expect(try json.importValue("text", as: String.self) == "hi")
        #expect(try json.importValue("yes", as: Bool.self) == true)
        #expect(try json.importValue("uuid", as: UUID.self) == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(try json.importValue("url", as: URL.self) == URL(string: "https://x.org/a"))
        #expect(try json.importOptionalValue("nothing", as: Int.self) == nil)
        #expect(try json.importOptionalValue("absent", as: Int.self) == nil)

        let native: [String: Any] = ["int": 3, "flag": false, "maybe": Optional<Int>.none as Any]
        #expect(try native.importValue("int", as: Double.self) == 3)
        #expect(try native.importOptionalValue("maybe", as: Int.self) == nil)

        let failures: [(String, Any.Type, String)] = [
            ("absent", Int.self, "the key 'absent' is missing"),
            ("nothing", Int.self, "the key 'nothing' is null; expected Int"),
            ("frac", Int.self, "the key 'frac' holds the number 2.5; expected Int"),
            ("text", Int.self, "the key 'text' holds the string \"hi\"; expected Int"),
            ("yes", Int.self, "the key 'yes' holds the boolean true; expected Int"),
            ("int", Bool.self, "the key 'int' holds the number 7; expected Bool"),
            ("list", String.self, "the key 'list' holds an array; expected String"),
            ("object", String.self, "the key 'object' holds an object; expected String"),
            ("text", UUID.self, "the key 'text' holds the string \"hi\"; expected UUID"),
        ]
        for (key, type, message) in failures {
            do {
                _ = try Self.read(json, key, type)
                Issue.record("reading '\(key)' as \(type) did not throw")
            } catch {
                guard case .invalidImportSource(nil, nil, let actual) = error else {
                    Issue.record("reading '\(key)' threw \(error)")
                    continue
                }
                #expect(actual == message)
            }
        }
        #expect(throws: CoreStoreError.self) { try native.importValue("flag", as: Int.self) }
    }

    private static func read(_ source: [String: Any], _ key: String, _ type: Any.Type) throws(CoreStoreError) -> Any {
        switch type {
        case is Int.Type: return try source.importValue(key, as: Int.self)
        case is Bool.Type: return try source.importValue(key, as: Bool.self)
        case is UUID.Type: return try source.importValue(key, as: UUID.self)
        default: return try source.importValue(key, as: String.self)
        }
    }

    @Test func importErrorsReadAsSentences() {
        let full = CoreStoreError.invalidImportSource(entity: "Person", sourceIndex: 3, message: "the key 'id' is missing")
        #expect(full.description == "Cannot import the source at index 3 into 'Person': the key 'id' is missing.")
        #expect(full.debugDescription.hasPrefix("CoreStoreError.invalidImportSource: "))
        let bare = CoreStoreError.invalidImportSource(entity: nil, sourceIndex: nil, message: "the key 'id' is missing")
        #expect(bare.description == "Cannot import a source: the key 'id' is missing.")
    }

    @Test func anImportAfterTheTransactionEndedIsMisuse() throws {
        let stack = try Self.makeStack(.inMemory)
        let transaction = try stack.perform(synchronous: { UncheckedBox($0) }).value
        #expect {
            try transaction.importUniqueObject(Into<Contact>(), source: ["email": "a@x", "name": "Ann"])
        } throws: { error in
            guard case CoreStoreError.transactionMisuse = error else { return false }
            return true
        }
    }

    @Test func settingAnEqualValueIsNoChange() throws {
        let stack = try Self.makeStack(.inMemory)
        try stack.perform(synchronous: { t in _ = try t.importUniqueObject(Into<Contact>(), source: ["email": "a@x", "name": "Ann"]) })
        try stack.perform(synchronous: { t in
            let ann = try #require(try t.fetchOne(From<Contact>()))
            ann.name = "Ann"
            #expect(!t.hasChanges)
            ann.name = "Annie"
            #expect(t.updatedObjects() == [ann])
        })
    }
}
