import CoreStore
import Foundation

/// The model fuzzed sources are imported into: unique by `id`, with an attribute for each kind
/// the import value accessors convert.
final class FuzzImported: CoreStoreObject, ImportableUniqueObject {
    @Field.Stored("id") var id: Int = 0
    @Field.Stored("name") var name: String = ""
    @Field.Stored("score") var score: Double = 0
    @Field.Stored("flag") var flag: Bool = false
    @Field.Stored("count") var count: Int64 = 0
    @Field.Stored("token") var token: UUID?
    @Field.Stored("link") var link: URL?

    typealias ImportSource = [String: Any]
    static let uniqueIDKeyPath = String(keyPath: \FuzzImported.$id)
    var uniqueIDValue: Int {
        get { id }
        set { id = newValue }
    }

    static func uniqueID(from source: ImportSource, in transaction: BaseDataTransaction) throws -> Int? {
        try source.importOptionalValue("id", as: Int.self)
    }

    func update(from source: ImportSource, in transaction: BaseDataTransaction) throws {
        name = try source.importValue("name", as: String.self)
        score = try source.importOptionalValue("score", as: Double.self) ?? score
        flag = try source.importOptionalValue("flag", as: Bool.self) ?? flag
        count = try source.importOptionalValue("count", as: Int64.self) ?? count
        token = try source.importOptionalValue("token", as: UUID.self)
        link = try source.importOptionalValue("link", as: URL.self)
    }
}

/// Drops everything: most inputs fail their import on purpose, and `DefaultLogger` writes every
/// error whatever its minimum level, which slowed the run to a third.
private struct SilentLogger: CoreStoreLogger {
    func log(level: LogLevel, message: String, fileName: StaticString, lineNumber: Int, functionName: StaticString) {}
    func log(error: CoreStoreError, message: String, fileName: StaticString, lineNumber: Int, functionName: StaticString) {}
    func assert(_ condition: @autoclosure () -> Bool, message: @autoclosure () -> String, fileName: StaticString, lineNumber: Int, functionName: StaticString) {}
}

/// An in-memory stack, made once; every input's import is rolled back, so it stays empty.
private let stack: DataStack = {
    CoreStoreDefaults.logger = SilentLogger()
    let stack = DataStack(CoreStoreSchema(modelVersion: "FuzzImport", entities: [
        Entity<FuzzImported>("Imported", uniqueConstraints: [[\FuzzImported.$id]]),
    ]))
    do {
        try stack.addStorageAndWait(InMemoryStore())
    } catch {
        fatalError("cannot set up the fuzz stack: \(error)")
    }
    return stack
}()

/// Thrown to roll an import back once it has been checked.
private struct RollBack: Error {}

/// Reads `key` of `source` as `T`. A value must come back, or `invalidImportSource` naming
/// the key; anything else is a finding.
private func probe<T>(_ source: [String: Any], _ key: String, as type: T.Type) {
    do {
        _ = try source.importOptionalValue(key, as: T.self)
        _ = try source.importValue(key, as: T.self)
    } catch {
        guard case .invalidImportSource(_, _, let message) = error, message.contains("'\(key)'") else {
            fatalError("reading '\(key)' as \(T.self) threw \(error)")
        }
    }
}

/// One input: bytes parsed as JSON. Each key of each object is read as every type the
/// accessors convert; then the objects are imported (unique by `id`) inside a transaction that
/// is rolled back. The import must succeed or throw a `CoreStoreError`; either way the store
/// must hold nothing afterwards. Any trap or memory error is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func importValuesFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    guard let json = try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed]) else { return 0 }
    let sources: [[String: Any]]
    if let object = json as? [String: Any] {
        sources = [object]
    } else if let array = json as? [Any] {
        sources = array.compactMap { $0 as? [String: Any] }
    } else {
        return 0
    }
    for source in sources {
        for key in source.keys {
            probe(source, key, as: Int.self)
            probe(source, key, as: Int64.self)
            probe(source, key, as: Double.self)
            probe(source, key, as: Bool.self)
            probe(source, key, as: String.self)
            probe(source, key, as: UUID.self)
            probe(source, key, as: URL.self)
            probe(source, key, as: [Any].self)
            probe(source, key, as: [String: Any].self)
        }
    }
    do {
        try stack.perform(synchronous: { transaction in
            let imported = try transaction.importUniqueObjects(Into<FuzzImported>(), sourceArray: sources)
            let ids = Set(imported.map(\.id))
            guard ids.count == imported.count else { fatalError("an import returned the ID \(imported.map(\.id)) twice") }
            throw RollBack()
        })
    } catch {
        // A source the model cannot take, or the roll-back.
    }
    do {
        let left = try stack.fetchCount(From<FuzzImported>())
        if left != 0 { fatalError("a rolled-back import left \(left) objects") }
    } catch {
        fatalError("counting after an import threw \(error)")
    }
    return 0
}
