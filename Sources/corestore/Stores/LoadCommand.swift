import ArgumentParser
import CoreStore
import CoreStoreStorage
import Foundation

/// `corestore load PATH --entity E FILE`: objects from JSON into a store, all or nothing.
struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load objects from JSON into a store, in one commit: all of them or none.",
        discussion: """
            FILE holds objects as `corestore dump` writes them (jsonl: one per line; json: one \
            array); "-" reads standard input. Each object names attributes and relationships of \
            the entity (or of the sub-entity its "_entity" names); a "_key" is ignored, as keys \
            are given by the store. A relationship is the key of an object already in the store \
            (to-one, or null) or a list of keys (to-many). Attributes left out take their \
            default values.

            When the entity has a unique constraint, an object whose values for it match a \
            stored object updates that object (only the fields it names) instead of inserting \
            one, as CoreStore's unique importing does; two objects of the file with the same \
            values are one object, the later fields winning. Any bad value stops the load with \
            its line and nothing is written.

            Stop the app first: an app with the store open would not see this change. A store \
            another process has open is refused, naming the process (LMDB, LevelDB, and SQLite \
            in WAL mode show it through their file locks).

            Examples:
              corestore load App.sqlite --entity Book books.jsonl
              corestore dump Old.lmdb --entity Book | corestore load App.sqlite --entity Book -
            """
    )

    enum Format: String, CaseIterable, ExpressibleByArgument {
        case jsonl, json
    }

    @Argument(help: "The store's file (SQLite) or directory (LMDB, LevelDB).")
    var path: String

    @Option(help: "The entity the objects belong to.")
    var entity: String

    @Argument(help: "The JSON file, or - for standard input.")
    var file: String

    @Option(help: "jsonl (the default) or json; a .json file is read as json.")
    var format: Format?

    @Option(help: "The backend, when the files should not decide: \(StoreBackend.allCases.map(\.rawValue).joined(separator: ", ")).")
    var backend: StoreBackend?

    @Flag(help: "Print nothing when the load succeeds.")
    var quiet = false

    func run() throws {
        let objects = try readObjects()
        let store = try OpenedStore.open(path: path, backend: backend, access: .writing, toolAction: "load into it")
        let schema = try store.requireSchema()
        guard schema.entity(named: entity) != nil else {
            throw StoreToolError("\(path) has no entity '\(entity)'; it has \(schema.entities.map(\.name).joined(separator: ", "))")
        }
        var plan = LoadPlan(schema: schema, entity: entity)
        let progress = ProgressReporter("load", total: objects.count, quiet: quiet)
        defer { progress.finish() }
        try store.read { reader in
            for (index, (label, fields)) in objects.enumerated() {
                progress.update(index)
                do {
                    try plan.add(fields, reader: reader)
                } catch {
                    throw StoreToolError("\(file), \(label): \(error); nothing was loaded")
                }
            }
        }
        do {
            _ = try store.storage.write(plan.changes)
        } catch {
            throw StoreToolError("loading \(file) into \(path) failed: \(error); nothing was loaded")
        }
        if !quiet {
            print("Loaded \(objects.count.formatted) object\(objects.count == 1 ? "" : "s") into \(entity): \(plan.changes.inserts.count.formatted) inserted, \(plan.changes.updates.count.formatted) updated.")
        }
    }

    /// The objects of the file, each with where it is ("line 3", "object 3").
    private func readObjects() throws -> [(String, [String: JSONValue])] {
        let data: Data
        do {
            data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw StoreToolError("cannot read \(file): \(error.localizedDescription)")
        }
        let decoder = JSONDecoder()
        if (format ?? (file.hasSuffix(".json") ? .json : .jsonl)) == .json {
            guard let array = try? decoder.decode([[String: JSONValue]].self, from: data) else {
                throw StoreToolError("\(file) is not a JSON array of objects")
            }
            return array.enumerated().map { ("object \($0.offset + 1)", $0.element) }
        }
        var objects: [(String, [String: JSONValue])] = []
        for (number, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            guard let object = try? decoder.decode([String: JSONValue].self, from: Data(line)) else {
                throw StoreToolError("\(file), line \(number + 1): not a JSON object; nothing was loaded")
            }
            objects.append(("line \(number + 1)", object))
        }
        return objects
    }
}
