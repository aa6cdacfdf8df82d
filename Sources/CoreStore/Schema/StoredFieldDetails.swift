/// What a stored attribute's declaration seldom says: a dynamic initial value, a previous key,
/// keys that affect it, custom accessors.
///
/// Swift stores a property wrapper inside every instance, so each object carries a
/// ``FieldDefinition/Stored`` per attribute. Keeping these behind one optional reference, `nil`
/// for a declaration that says none of them, makes the common field cost an object its key and
/// its initial value (five words), where room for every option took ten.
@usableFromInline
final class StoredFieldDetails<V>: @unchecked Sendable {
    /// Whether the initial value is computed anew for every inserted object.
    let isDynamic: Bool
    /// The key the attribute had in the previous model version, for migrations.
    let previousVersionKeyPath: String?
    /// The keys whose changes change this field's value too (observers hear about both).
    let affectedByKeyPaths: Set<String>
    /// The custom getter and setter, when declared.
    @usableFromInline let accessors: FieldAccessors<V>?

    fileprivate init(isDynamic: Bool, previousVersionKeyPath: String?, affectedByKeyPaths: Set<String>, accessors: FieldAccessors<V>?) {
        self.isDynamic = isDynamic
        self.previousVersionKeyPath = previousVersionKeyPath
        self.affectedByKeyPaths = affectedByKeyPaths
        self.accessors = accessors
    }
}

/// Makes ``StoredFieldDetails`` for the fields that need them. A non-generic namespace, so that
/// a field's initializer calls it without looking up a class's generic metadata.
@usableFromInline
enum StoredFieldDeclaration {
    /// The details of a declaration, `nil` when it has none: a call out of line, which keeps
    /// the closures a field is declared with from being stored (and wrapped) in every object.
    @usableFromInline @inline(never)
    static func details<V>(isDynamic: Bool, previousVersionKeyPath: () -> String?, affectedByKeyPaths: () -> Set<String>, accessors: FieldAccessors<V>?) -> StoredFieldDetails<V>? {
        let previous = previousVersionKeyPath()
        let affected = affectedByKeyPaths()
        if !isDynamic && accessors == nil && previous == nil && affected.isEmpty { return nil }
        return StoredFieldDetails(isDynamic: isDynamic, previousVersionKeyPath: previous, affectedByKeyPaths: affected, accessors: accessors)
    }
}
