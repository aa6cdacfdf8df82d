import Foundation
import CoreStore

/// A person imported from JSON-like dictionaries, unique by `remoteID`.
///
/// Source keys: `id` (the unique ID; missing or `null` skips the source), `name` (required),
/// `age` (optional); `skipInsert` / `skipUpdate` make `shouldInsert` / `shouldUpdate` decline;
/// `failIn` names the mapper that throws (`uniqueID`, `didInsert` or `update`).
final class ImportedPerson: CoreStoreObject, ImportableUniqueObject {
    @Field.Stored("remoteID") var remoteID: Int = 0
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    /// The unique ID the object held when `didInsert(from:in:)` began (-1: never inserted by
    /// an import).
    @Field.Stored("idAtInsert") var idAtInsert: Int = -1

    typealias ImportSource = [String: Any]

    static let uniqueIDKeyPath = String(keyPath: \ImportedPerson.$remoteID)

    var uniqueIDValue: Int {
        get { remoteID }
        set { remoteID = newValue }
    }

    static func shouldInsert(from source: ImportSource, in transaction: BaseDataTransaction) -> Bool {
        source["skipInsert"] == nil
    }

    static func shouldUpdate(from source: ImportSource, in transaction: BaseDataTransaction) -> Bool {
        source["skipUpdate"] == nil
    }

    static func uniqueID(from source: ImportSource, in transaction: BaseDataTransaction) throws -> Int? {
        if source["failIn"] as? String == "uniqueID" { throw ImportMapperError(stage: "uniqueID") }
        return try source.importOptionalValue("id", as: Int.self)
    }

    func didInsert(from source: ImportSource, in transaction: BaseDataTransaction) throws {
        idAtInsert = remoteID
        if source["failIn"] as? String == "didInsert" { throw ImportMapperError(stage: "didInsert") }
        try update(from: source, in: transaction)
    }

    func update(from source: ImportSource, in transaction: BaseDataTransaction) throws {
        if source["failIn"] as? String == "update" { throw ImportMapperError(stage: "update") }
        name = try source.importValue("name", as: String.self)
        age = try source.importOptionalValue("age", as: Int.self) ?? 0
    }
}

/// A note imported without uniquing: every import inserts.
final class ImportedNote: CoreStoreObject, ImportableObject {
    @Field.Stored("text") var text: String = ""

    /// The note's text, or `nil` to have `shouldInsert` decline it; `fails` makes `didInsert` throw.
    struct Source {
        var text: String?
        var fails = false
    }

    typealias ImportSource = Source

    static func shouldInsert(from source: Source, in transaction: BaseDataTransaction) -> Bool {
        source.text != nil
    }

    func didInsert(from source: Source, in transaction: BaseDataTransaction) throws {
        if source.fails { throw ImportMapperError(stage: "didInsert") }
        text = source.text ?? ""
    }
}

/// A model whose unique ID names no stored attribute.
final class ImportedMisnamed: CoreStoreObject, ImportableUniqueObject {
    @Field.Stored("code") var code: String = ""
    typealias ImportSource = String
    static let uniqueIDKeyPath = "kode"
    var uniqueIDValue: String {
        get { code }
        set { code = newValue }
    }
    static func uniqueID(from source: String, in transaction: BaseDataTransaction) throws -> String? { source }
    func update(from source: String, in transaction: BaseDataTransaction) throws {}
}

/// A model whose unique ID type does not match its field's.
final class ImportedMistyped: CoreStoreObject, ImportableUniqueObject {
    @Field.Stored("code") var code: String = ""
    typealias ImportSource = Int
    static let uniqueIDKeyPath = String(keyPath: \ImportedMistyped.$code)
    var uniqueIDValue: Int {
        get { Int(code) ?? 0 }
        set { code = String(newValue) }
    }
    static func uniqueID(from source: Int, in transaction: BaseDataTransaction) throws -> Int? { source }
    func update(from source: Int, in transaction: BaseDataTransaction) throws {}
}

/// The error the import mappers throw on request.
struct ImportMapperError: Error, Equatable {
    let stage: String
}

/// Records list callbacks on imported people as text.
final class ImportListRecorder: ListObjectObserver, @unchecked Sendable {
    typealias ListEntityType = ImportedPerson
    private let lock = NSLock()
    private var _events: [String] = []
    var events: [String] { lock.withLock { _events } }
    private func record(_ text: String) { lock.withLock { _events.append(text) } }

    func listMonitor(_ monitor: ListMonitor<ImportedPerson>, didInsertObject object: ImportedPerson, toIndexPath indexPath: IndexPath) {
        record("insert \(object.remoteID)")
    }
    func listMonitor(_ monitor: ListMonitor<ImportedPerson>, didDeleteObject object: ImportedPerson, fromIndexPath indexPath: IndexPath) {
        record("delete \(object.remoteID)")
    }
    func listMonitor(_ monitor: ListMonitor<ImportedPerson>, didUpdateObject object: ImportedPerson, atIndexPath indexPath: IndexPath) {
        record("update \(object.remoteID)")
    }
    func listMonitor(_ monitor: ListMonitor<ImportedPerson>, didMoveObject object: ImportedPerson, fromIndexPath: IndexPath, toIndexPath: IndexPath) {
        record("move \(object.remoteID)")
    }
}
