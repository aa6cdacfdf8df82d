import ArgumentParser
import CoreStore
import CoreStoreStorage
import Foundation

/// `corestore migrate PATH --schema FILE`: forecasts or runs the migration of a store file to
/// another model version, inferred from the two schemas.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Forecast (--dry-run) or run a store's migration to the schema in a JSON file.",
        discussion: """
            FILE is a schema as stores record it: from `corestore inspect PATH --schema`, or from \
            the app with `try schema.storeSchemaJSON()` on its CoreStoreSchema. The step from \
            the store's recorded schema to FILE's is inferred (renames through \
            renamingIdentifier, added attributes with their defaults, removed ones dropped, \
            type changes CoreStore infers); steps that need custom code (a \
            CustomSchemaMappingProvider) run only from the app. The migration is all or nothing \
            and survives being killed at any moment: the store keeps the old version until the \
            new one is complete.

            Stop the app first: an app with the store open would not see this change. A store \
            another process has open is refused, naming the process (LMDB, LevelDB, and SQLite \
            in WAL mode show it through their file locks).

            Examples:
              corestore migrate App.sqlite --schema v2.json --dry-run
              corestore migrate App.lmdb --schema v2.json
            """
    )

    @Argument(help: "The store's file (SQLite) or directory (LMDB, LevelDB).")
    var path: String

    @Option(help: "The JSON schema of the version to migrate to.")
    var schema: String

    @Flag(help: "Print the migration that would run, and change nothing.")
    var dryRun = false

    @Option(help: "The backend, when the files should not decide: \(StoreBackend.allCases.map(\.rawValue).joined(separator: ", ")).")
    var backend: StoreBackend?

    @Flag(help: "No progress, and nothing printed when the migration succeeds.")
    var quiet = false

    func run() throws {
        let destination: StoreSchema
        do {
            destination = try JSONDecoder().decode(StoreSchema.self, from: Data(contentsOf: URL(fileURLWithPath: schema)))
        } catch {
            throw StoreToolError("\(schema) is not a schema: \(error)")
        }
        let store = try OpenedStore.open(path: path, backend: backend, access: .changingLater, toolAction: "migrate it")
        let source = try store.requireSchema()
        guard source.schemaHash != destination.schemaHash else {
            if !quiet { print("\(path) is already at model version '\(destination.modelVersion)'; nothing to do.") }
            return
        }
        let mapping: SchemaMapping
        do {
            mapping = try InferredSchemaMappingProvider().schemaMapping(from: source, to: destination)
        } catch {
            throw StoreToolError("cannot infer the migration of \(path) from '\(source.modelVersion)' to '\(destination.modelVersion)': \(error); a step that needs custom code runs from the app (CustomSchemaMappingProvider)")
        }
        if dryRun {
            print("\(path): \(mapping.migrationType)")
            return
        }
        guard let storage = store.storage as? any MigratableStorage else {
            throw StoreToolError("a \(store.backend.rawValue) store cannot be migrated")
        }
        storage.close()
        let progress = ProgressReporter("migrate", total: nil, quiet: quiet)
        do {
            try SchemaMigrator(mapping: mapping).migrate(storage) { completed, total in
                progress.total = Int(total)
                progress.update(Int(completed))
            }
        } catch {
            progress.finish()
            throw StoreToolError("migrating \(path) failed: \(error); it keeps model version '\(source.modelVersion)'")
        }
        progress.finish()
        if !quiet { print("Migrated \(path) from '\(source.modelVersion)' to '\(destination.modelVersion)': \(mapping.migrationType).") }
    }
}
