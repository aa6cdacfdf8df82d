import ArgumentParser
import CoreStore
import CoreStoreStorage
import Foundation

/// `corestore dump PATH`: every object of a store, streamed in key order, in bounded memory.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print every object of a store with its attributes and relationships.",
        discussion: """
            Objects come entity by entity (parents first), each entity in key order, all from \
            one snapshot of the store, a page at a time. Each object has "_entity" and "_key"; \
            a relationship is the key of its destination (to-one, or null) or a list of keys \
            (to-many; in key order when it is unordered). Numbers are JSON numbers (non-finite doubles: "nan", "inf", "-inf"); \
            decimals, Base64 bytes, ISO 8601 dates and UUIDs are strings.

            Formats: jsonl (one object per line; the default), json (one array), csv (one \
            entity, given with --entity; its sub-entities' objects are not included, and a \
            to-many relationship is its keys separated by spaces).

            Examples:
              corestore dump App.sqlite > app.jsonl
              corestore dump Library.lmdb --entity Book --format json
              corestore dump Library.lmdb --entity Book --format csv > books.csv
            """
    )

    enum Format: String, CaseIterable, ExpressibleByArgument {
        case jsonl, json, csv
    }

    @Argument(help: "The store's file (SQLite) or directory (LMDB, LevelDB).")
    var path: String

    @Option(help: "Only this entity (and, except for csv, its sub-entities).")
    var entity: String?

    @Option(help: "Output format: jsonl, json or csv.")
    var format: Format = .jsonl

    @Option(help: "The backend, when the files should not decide: \(StoreBackend.allCases.map(\.rawValue).joined(separator: ", ")).")
    var backend: StoreBackend?

    @Option(help: "Objects read at a time.")
    var pageSize = 1_000

    @Flag(help: "No progress on standard error (shown only when the output is not a terminal).")
    var quiet = false

    func validate() throws {
        if format == .csv && entity == nil {
            throw ValidationError("--format csv needs --entity: each entity has its own columns")
        }
        if pageSize < 1 { throw ValidationError("--page-size must be at least 1") }
    }

    func run() throws {
        let store = try OpenedStore.open(path: path, backend: backend, toolAction: "dump it")
        var entities = try store.concreteEntities(entity)
        if format == .csv { entities = entities.filter { $0.name == entity } }
        var out = OutputBuffer()
        var first = true
        if format == .json { out.append("[") }
        if format == .csv, let only = entities.first { out.append(Self.csvHeader(only) + "\n") }
        try store.read { reader in
            let total = try entities.reduce(0) { $0 + (try reader.count(FetchRequest(entity: $1.name, includesSubentities: false))) }
            let progress = ProgressReporter("dump", total: total, quiet: quiet || isatty(STDOUT_FILENO) == 1)
            var done = 0
            defer { progress.finish() }
            for description in entities {
                try reader.forEachPage(of: description.name, pageSize: pageSize) { page in
                    for record in page {
                        switch format {
                        case .jsonl: out.append(Self.json(record, description) + "\n")
                        case .json: out.append((first ? "\n" : ",\n") + Self.json(record, description))
                        case .csv: out.append(Self.csvRow(record, description) + "\n")
                        }
                        first = false
                    }
                    done += page.count
                    progress.update(done)
                }
            }
        }
        if format == .json { out.append(first ? "]\n" : "\n]\n") }
        out.flush()
    }

    /// One object as a JSON object: `_entity`, `_key`, attributes, then relationships, in the
    /// schema's order.
    static func json(_ record: Record, _ entity: EntityDescription) -> String {
        var parts = ["\"_entity\":" + DumpValueText.jsonString(record.id.entity), "\"_key\":\(record.id.key)"]
        for (attribute, value) in zip(entity.attributes, record.attributes) {
            parts.append(DumpValueText.jsonString(attribute.name) + ":" + DumpValueText.json(value))
        }
        for (relationship, destinations) in zip(entity.relationships, record.relationships) {
            let text = relationship.kind == .toOne
                ? destinations.first.map { String($0.key) } ?? "null"
                : "[" + keys(destinations, relationship).map(String.init).joined(separator: ",") + "]"
            parts.append(DumpValueText.jsonString(relationship.name) + ":" + text)
        }
        return "{" + parts.joined(separator: ",") + "}"
    }

    static func csvHeader(_ entity: EntityDescription) -> String {
        (["_key"] + entity.attributes.map(\.name) + entity.relationships.map(\.name)).map(DumpValueText.csvField).joined(separator: ",")
    }

    static func csvRow(_ record: Record, _ entity: EntityDescription) -> String {
        var fields = [String(record.id.key)]
        fields += record.attributes.map(DumpValueText.csv)
        fields += zip(entity.relationships, record.relationships).map { relationship, destinations in
            relationship.kind == .toOne && destinations.isEmpty ? "" : keys(destinations, relationship).map(String.init).joined(separator: " ")
        }
        return fields.joined(separator: ",")
    }

    /// The keys of a relationship's destinations: in their order for an ordered to-many, in key
    /// order otherwise (an unordered to-many has no order, and stores keep different ones).
    static func keys(_ destinations: [RecordID], _ relationship: RelationshipDescription) -> [Int64] {
        let keys = destinations.map(\.key)
        return relationship.kind == .toManyUnordered ? keys.sorted() : keys
    }
}
