import ArgumentParser
import CoreStoreStorage
import Foundation

/// `corestore inspect PATH`: what a store holds, without the application's model.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a store's model, entities, object counts, size and metadata.",
        discussion: """
            Detects the backend from the files: a SQLite database file, or an LMDB (data.mdb) or \
            LevelDB (CURRENT) directory. Reads only; the store is left as it is.

            Examples:
              corestore inspect App.sqlite
              corestore inspect Library.lmdb --json
              corestore inspect data/store --backend leveldb
              corestore inspect App.sqlite --schema > v1.json
            """
    )

    @Argument(help: "The store's file (SQLite) or directory (LMDB, LevelDB).")
    var path: String

    @Option(help: "The backend, when the files should not decide: \(StoreBackend.allCases.map(\.rawValue).joined(separator: ", ")).")
    var backend: StoreBackend?

    @Flag(help: "Print JSON for scripts instead of text.")
    var json = false

    @Flag(help: "Print only the recorded schema, as JSON (the form `corestore migrate --schema` takes).")
    var schema = false

    func run() throws {
        let store = try OpenedStore.open(path: path, backend: backend, toolAction: "inspect it")
        if schema {
            print(StoredMetadata.schemaJSON(try store.requireSchema()))
            return
        }
        let report = try InspectReport(store)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.text)
        }
    }
}
