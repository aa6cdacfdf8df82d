import CoreStore
import CoreStoreSQLite
import Foundation

/// The two model versions of the demo's migration section: contacts with a first and a last name
/// (`DemoContacts1`), then with one full name, a normalized phone number and a new `isFavorite`
/// flag (`DemoContacts2`).
enum DemoContactsV1 {
    final class Contact: CoreStoreObject {
        @Field.Stored("firstName") var firstName: String = ""
        @Field.Stored("lastName") var lastName: String = ""
        @Field.Stored("phone") var phone: String?
    }

    static let schema = CoreStoreSchema(modelVersion: "DemoContacts1", entities: [Entity<Contact>("Contact")])
}

enum DemoContactsV2 {
    final class Contact: CoreStoreObject {
        @Field.Stored("fullName") var fullName: String = ""
        @Field.Stored("phoneNumber", previousVersionKeyPath: "phone") var phoneNumber: String = ""
        @Field.Stored("isFavorite") var isFavorite: Bool = false
    }

    static let schema = CoreStoreSchema(modelVersion: "DemoContacts2", entities: [Entity<Contact>("Contact")])

    /// Joins the names, keeps only digits of the phone number, and drops contacts without one.
    static let mapping = CustomSchemaMappingProvider(from: "DemoContacts1", to: "DemoContacts2", entityMappings: [
        .transformEntity(sourceEntity: "Contact", destinationEntity: "Contact") { source, createDestination in
            guard let phone = source["phone"] as? String else { return }
            let contact = createDestination()
            contact["fullName"] = "\(source["firstName"] as? String ?? "") \(source["lastName"] as? String ?? "")"
            contact["phoneNumber"] = String(phone.filter(\.isNumber))
        },
    ])
}

extension DemoCommand {
    /// Section 9: writes contacts with model version 1, forecasts the migration, then adds the
    /// store to a stack whose current version is 2, with a progress bar on a terminal.
    func migrateContacts(besides mainStore: URL?) async throws {
        print("\n9. A progressive migration with a custom mapping")
        let directory = mainStore?.deletingLastPathComponent() ?? FileManager.default.temporaryDirectory
        let fileURL = directory.appendingPathComponent("corestore-demo-contacts.sqlite")
        for suffix in [""] + SQLiteStore.sideFileSuffixes { try? FileManager.default.removeItem(atPath: fileURL.path + suffix) }
        defer { for suffix in [""] + SQLiteStore.sideFileSuffixes { try? FileManager.default.removeItem(atPath: fileURL.path + suffix) } }

        let count = 20_000
        do {
            let version1 = DataStack(DemoContactsV1.schema)
            try version1.addStorageAndWait(SQLiteStore(fileURL: fileURL))
            try version1.perform(synchronous: { transaction in
                for i in 0..<count {
                    let contact = transaction.create(Into<DemoContactsV1.Contact>())
                    contact.firstName = ["Ada", "Grace", "Linus", "Margaret"][i % 4]
                    contact.lastName = "Number \(i)"
                    contact.phone = i % 10 == 0 ? nil : "+1 (555) \(1000 + i % 9000)"
                }
            })
        }
        print("   wrote \(count) contacts with model 'DemoContacts1' (first and last name, optional phone)")

        let stack = DataStack(DemoContactsV1.schema, DemoContactsV2.schema, migrationChain: ["DemoContacts1", "DemoContacts2"])
        let store = SQLiteStore(fileURL: fileURL, migrationMappingProviders: [DemoContactsV2.mapping])
        let steps = try stack.requiredMigrationsForStorage(store)
        print("   forecast: \(steps.map { "\($0.isHeavyweightMigration ? "heavyweight" : "lightweight") \($0.sourceVersion) → \($0.destinationVersion)" }.joined(separator: ", "))")
        let bar = ProgressBar(isTerminal: isatty(STDOUT_FILENO) == 1)
        for try await progress in stack.async.addStorage(store) {
            bar.show(progress.fractionCompleted)
        }
        bar.finish()
        let migrated = try stack.fetchCount(From<DemoContactsV2.Contact>())
        let first = try stack.fetchOne(From<DemoContactsV2.Contact>().orderBy(.ascending(\.$fullName)))
        print("   now at '\(stack.modelVersion)': \(migrated) contacts (the \(count - migrated) without a phone were dropped by the mapping)")
        if let first { print("   first by name: \(first.fullName), phone \(first.phoneNumber), favorite: \(first.isFavorite)") }
    }
}

/// A one-line progress bar on a terminal; a line per quarter otherwise.
final class ProgressBar {
    private let isTerminal: Bool
    private var lastShown = -1

    init(isTerminal: Bool) {
        self.isTerminal = isTerminal
    }

    func show(_ fraction: Double) {
        let percent = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
        if isTerminal {
            guard percent != lastShown else { return }
            let filled = percent * 30 / 100
            print("\r   migrating [\(String(repeating: "#", count: filled))\(String(repeating: ".", count: 30 - filled))] \(percent)%", terminator: "")
            fflush(nil)
        } else if percent / 25 != lastShown / 25 || lastShown < 0 {
            print("   migrating: \(percent)%")
        }
        lastShown = percent
    }

    func finish() {
        if isTerminal { print("") }
    }
}
