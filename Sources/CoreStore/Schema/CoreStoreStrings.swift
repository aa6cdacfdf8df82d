/// The name of a store configuration: the group of entities one store holds. `nil` is the
/// default configuration, which holds every entity.
public typealias ModelConfiguration = String?

/// An entity's name in the schema.
public typealias EntityName = String

/// A model class's name.
public typealias ClassName = String

/// A field's name in the schema (its key path string), such as `"name"` or `"master.name"`.
public typealias KeyPathString = String
