import CoreStoreStorage

/// A clause that shapes a fetch: ``Where``, ``OrderBy`` or ``Tweak``.
public protocol FetchClause {
    /// Applies the clause to the request being built. Clauses apply in the order given.
    func applyToFetchRequest(_ request: inout CoreStoreFetchRequest)
}

/// A fetch request: what `From`, `Where`, `OrderBy` and `Tweak` clauses ask for. Clauses fill
/// it in; the object layer resolves it once against the model and the stores
/// (`StorageGateway.target(of:)`), then asks each store with a `FetchRequest` of the storage
/// contract. Its contents are managed by the clauses.
public struct CoreStoreFetchRequest {
    var entityType: CoreStoreObject.Type
    /// `nil`: every store holding the entity; otherwise only stores of these configurations.
    var configurations: [String?]?
    var predicate: RecordPredicate?
    var sortDescriptors: [RecordSortDescriptor] = []
    var tweaks = FetchTweaks()
    /// The first error a clause reported while the request was built; the request throws it.
    var error: CoreStoreError?
}

/// Finds the stored key a field key path names, by reading the field from a cached meta
/// instance of the object type.
enum FieldKeys {
    private static let cache = KeyCache()

    static func key<O: CoreStoreObject>(_ keyPath: AnyKeyPath, on type: O.Type) -> String {
        if let cached = cache.get(keyPath) { return cached }
        let meta = type.init(asMeta: ())
        let name: String
        if let field = meta[keyPath: keyPath] as? FieldDescribing {
            name = field.cs_fieldKind.name
        } else {
            name = "\(keyPath)"
            Log.assert(false, "\(keyPath) does not name a @Field of \(type)")
        }
        cache.set(keyPath, name)
        return name
    }
}

private final class KeyCache: @unchecked Sendable {
    private let lock = NSLockWrapper()
    private var names: [AnyKeyPath: String] = [:]
    func get(_ keyPath: AnyKeyPath) -> String? { lock.run { names[keyPath] } }
    func set(_ keyPath: AnyKeyPath, _ name: String) { lock.run { names[keyPath] = name } }
}
