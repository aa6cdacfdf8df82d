// Generated from docs/POSTGRES.md by scripts/extract-doc-snippets.sh: edit the document, then run
// the script. Each method is one code block of the document (or a run of blocks of one name), verbatim.
import Foundation
import CoreStore
import CoreStorePostgres

extension GuideSnippets {
    /// docs/POSTGRES.md, the `addingAPostgresStore` block.
    func addingAPostgresStore() async throws {

        let dataStack = DataStack(CoreStoreSchema(modelVersion: "V1", entities: [Entity<Person>("Person")]))
        try dataStack.addStorageAndWait(PostgresStore(url: "postgres://app@db.internal:5432/app"))

        // or by components, with TLS, and a schema of its own
        let password = ProcessInfo.processInfo.environment["APP_DB_PASSWORD"]
        try dataStack.addStorageAndWait(PostgresStore(
            host: "db.internal", user: "app", password: password, database: "app", tls: .verifyFull,
            schemaName: "billing"
        ))
    }

    /// docs/POSTGRES.md, the `migratingAPostgresStore` block.
    func migratingAPostgresStore() async throws {
        let dataStack = DataStack(
            CoreStoreSchema(modelVersion: "V1", entities: [Entity<Person>("Person")]),
            CoreStoreSchema(modelVersion: "V2", entities: [Entity<Person>("Person")])
        )
        let store = PostgresStore(url: "postgres://app@db.internal:5432/app", migrationMappingProviders: [
            CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: []),
        ])
        for try await progress in dataStack.async.addStorage(store) {
            print("migrating: \(progress.fractionCompleted)")
        }
    }

}
