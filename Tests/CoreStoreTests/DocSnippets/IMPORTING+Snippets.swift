// Generated from docs/IMPORTING.md by scripts/extract-doc-snippets.sh: edit the document, then run
// the script. Each method is one code block of the document (or a run of blocks of one name), verbatim.
import Foundation
import CoreStore

extension GuideSnippets {
    /// docs/IMPORTING.md, the `importingStructs` block.
    func importingStructs() async throws {
        struct Reading: Decodable {
            let sensor: String
            let celsius: Double
        }

        final class Measurement: CoreStoreObject, ImportableObject {
            @Field.Stored("sensor") var sensor: String = ""
            @Field.Stored("celsius") var celsius: Double = 0

            typealias ImportSource = Reading

            static func shouldInsert(from source: Reading, in transaction: BaseDataTransaction) -> Bool {
                source.celsius > -273.15                              // physically impossible: skipped
            }
            func didInsert(from source: Reading, in transaction: BaseDataTransaction) throws {
                sensor = source.sensor
                celsius = source.celsius
            }
        }

        let stack = DataStack(CoreStoreSchema(modelVersion: "V1", entities: [Entity<Measurement>("Measurement")]))
        try stack.addStorageAndWait(InMemoryStore())
        let payload = Data(#"[{"sensor": "attic", "celsius": 21.5}, {"sensor": "cellar", "celsius": -300}]"#.utf8)
        let readings = try JSONDecoder().decode([Reading].self, from: payload)
        let imported = try stack.perform(synchronous: { transaction in
            try transaction.importObjects(Into<Measurement>(), sourceArray: readings).count
        })
        print(imported)                                               // 1
    }

    /// docs/IMPORTING.md, the `importingUnique` blocks.
    func importingUnique() async throws {
        final class Contact: CoreStoreObject, ImportableUniqueObject {
            @Field.Stored("email") var email: String = ""
            @Field.Stored("name") var name: String = ""
            @Field.Stored("phone") var phone: String?

            typealias ImportSource = [String: Any]
            static let uniqueIDKeyPath = String(keyPath: \Contact.$email)
            var uniqueIDValue: String { get { email } set { email = newValue } }

            static func uniqueID(from source: [String: Any], in transaction: BaseDataTransaction) throws -> String? {
                try source.importOptionalValue("email", as: String.self)?.lowercased()   // no email: skipped
            }
            func didInsert(from source: [String: Any], in transaction: BaseDataTransaction) throws {
                try update(from: source, in: transaction)
            }
            func update(from source: [String: Any], in transaction: BaseDataTransaction) throws {
                name = try source.importValue("name", as: String.self)
                phone = try source.importOptionalValue("phone", as: String.self)
            }
        }

        let contacts = DataStack(CoreStoreSchema(
            modelVersion: "V1", entities: [Entity<Contact>("Contact", uniqueConstraints: [[\Contact.$email]])]
        ))
        try contacts.addStorageAndWait(InMemoryStore())
        let monday: [[String: Any]] = [["email": "ada@example.com", "name": "Ada"], ["name": "no address"]]
        let tuesday: [[String: Any]] = [["email": "ADA@example.com", "name": "Ada L.", "phone": "555-0100"]]
        for batch in [monday, tuesday] {
            try await contacts.async.importUniqueObjects(Into<Contact>(), sourceArray: batch)
        }
        let ada = try contacts.fetchOne(From<Contact>())
        print(try contacts.fetchCount(From<Contact>()), ada?.name ?? "", ada?.phone ?? "")   // 1 Ada L. 555-0100

        do {
            try await contacts.async.importUniqueObjects(
                Into<Contact>(), sourceArray: [["email": "bob@example.com", "name": "Bob"], ["email": "cy@example.com", "name": 7]]
            )
        } catch {
            print(error)                      // names the entity, the source's index, the key and its value
        }
        print(try contacts.fetchCount(From<Contact>()))                 // still 1: Bob was not saved either
    }

}
