import CoreStore
import Foundation

/// A book of the demo's import section, unique by ISBN and imported from JSON objects.
final class DemoBook: CoreStoreObject, ImportableUniqueObject {
    @Field.Stored("isbn") var isbn: String = ""
    @Field.Stored("title") var title: String = ""
    @Field.Stored("author") var author: String = ""
    @Field.Stored("year") var year: Int = 0

    typealias ImportSource = [String: Any]

    static let uniqueIDKeyPath = String(keyPath: \DemoBook.$isbn)

    var uniqueIDValue: String {
        get { isbn }
        set { isbn = newValue }
    }

    /// Sources without an ISBN are drafts: skipped.
    static func uniqueID(from source: ImportSource, in transaction: BaseDataTransaction) throws -> String? {
        try source.importOptionalValue("isbn", as: String.self)
    }

    func update(from source: ImportSource, in transaction: BaseDataTransaction) throws {
        title = try source.importValue("title", as: String.self)
        author = try source.importValue("author", as: String.self)
        year = try source.importValue("year", as: Int.self)
    }
}

/// The JSON file of books the demo imports.
enum DemoBooks {
    static let fileName = "demo-books.json"

    /// The file shipped next to the executable (SwiftPM's resource bundle), or the one in the
    /// source tree when the executable was moved away from it.
    static func load() throws -> [[String: Any]] {
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("corestore_corestore.resources").appendingPathComponent(fileName),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Resources").appendingPathComponent(fileName),
        ]
        guard let url = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
            throw CoreStoreError.unknown(message: "The demo's \(fileName) was found neither next to the executable nor in the source tree (\(candidates.map(\.path).joined(separator: ", ")))")
        }
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        guard let books = object as? [[String: Any]] else {
            throw CoreStoreError.invalidImportSource(entity: "Book", sourceIndex: nil, message: "\(url.path) holds no array of JSON objects")
        }
        return books
    }
}
