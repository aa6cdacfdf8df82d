/// A field that names itself by its stored key, as CoreStore's closure forms read it:
/// `OrderBy<Person>.SortKey.ascending({ $0.$name })`.
public protocol AnyKeyPathStringConvertible {
    /// The field's stored key, such as `"name"`.
    var cs_keyPathString: String { get }
}

/// A field of a model class that names itself by its stored key.
public protocol KeyPathStringConvertible: AnyKeyPathStringConvertible {}

/// An attribute field (stored, coded or virtual).
public protocol AttributeKeyPathStringConvertible: KeyPathStringConvertible {}

/// A relationship field.
public protocol RelationshipKeyPathStringConvertible: KeyPathStringConvertible {}

extension FieldDefinition.Stored: AttributeKeyPathStringConvertible {
    /// ``keyPath``.
    public var cs_keyPathString: String { keyPath }
}

extension FieldDefinition.Coded: AttributeKeyPathStringConvertible {
    /// ``keyPath``.
    public var cs_keyPathString: String { keyPath }
}

extension FieldDefinition.Virtual: AttributeKeyPathStringConvertible {
    /// ``keyPath``.
    public var cs_keyPathString: String { keyPath }
}

extension FieldDefinition.Relationship: RelationshipKeyPathStringConvertible {
    /// ``keyPath``.
    public var cs_keyPathString: String { keyPath }
}
