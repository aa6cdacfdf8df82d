/// The values of an object's virtual fields at one moment, for an ``ObjectSnapshot``.
///
/// `@unchecked Sendable`: the values are whatever the getters returned and are never changed
/// after capture; a snapshot hands them out as they are, as CoreStore's snapshots do.
struct VirtualValues: @unchecked Sendable {
    private(set) var values: [String: Any] = [:]

    init() {}

    /// Runs every virtual field's getter of `object`'s class (and its superclasses) on it.
    init(of object: CoreStoreObject) {
        for field in VirtualFieldList.fields(of: type(of: object)) {
            values[field.keyPath] = field.anyValue(of: object)
        }
    }
}

/// A virtual field whose value can be read without knowing its type.
protocol AnyVirtualField {
    var keyPath: String { get }
    func anyValue(of object: CoreStoreObject) -> Any
}

extension FieldDefinition.Virtual: AnyVirtualField {
    func anyValue(of object: CoreStoreObject) -> Any { getter(object) }
}

extension FieldContainer.Virtual: AnyVirtualField {
    var keyPath: String { projectedValue.keyPath }
    func anyValue(of object: CoreStoreObject) -> Any { projectedValue.getter(object) }
}

/// The virtual fields of each model class, found once by reflecting a meta instance.
private enum VirtualFieldList {
    private static let cache = Cache()

    static func fields(of type: CoreStoreObject.Type) -> [any AnyVirtualField] {
        if let known = cache.get(type) { return known }
        var fields: [any AnyVirtualField] = []
        var mirror: Mirror? = Mirror(reflecting: type.init(asMeta: ()))
        while let current = mirror {
            fields += current.children.compactMap { $0.value as? any AnyVirtualField }
            mirror = current.superclassMirror
        }
        cache.set(type, fields)
        return fields
    }

    private final class Cache: @unchecked Sendable {
        private let lock = NSLockWrapper()
        private var fields: [ObjectIdentifier: [any AnyVirtualField]] = [:]
        func get(_ type: CoreStoreObject.Type) -> [any AnyVirtualField]? { lock.run { fields[ObjectIdentifier(type)] } }
        func set(_ type: CoreStoreObject.Type, _ list: [any AnyVirtualField]) { lock.run { fields[ObjectIdentifier(type)] = list } }
    }
}
