// `import CoreStore` brings Foundation, as CoreStore's own module does on Apple platforms
// (`URL`, `Date`, `Data` and `UUID` appear in every model).
@_exported import Foundation
import CoreStoreStorage
import CoreStoreInMemory

/// The in-memory store, available with `import CoreStore` alone.
public typealias InMemoryStore = CoreStoreInMemory.InMemoryStore
/// The storage contract, available with `import CoreStore` alone.
public typealias StorageInterface = CoreStoreStorage.StorageInterface
/// Relationship delete rules, available with `import CoreStore` alone.
public typealias DeleteRule = CoreStoreStorage.DeleteRule
/// String comparison options (`.caseInsensitive`, `.diacriticInsensitive`), available with
/// `import CoreStore` alone.
public typealias StringComparisonOptions = CoreStoreStorage.StringComparisonOptions
/// How a key path through to-many relationships combines its values, available with
/// `import CoreStore` alone.
public typealias Quantifier = CoreStoreStorage.Quantifier
/// Local store options (`.recreateStoreOnModelMismatch`, …), available with `import CoreStore` alone.
public typealias LocalStorageOptions = CoreStoreStorage.LocalStorageOptions
/// The protocol of stores kept in local files, available with `import CoreStore` alone.
public typealias LocalStorage = CoreStoreStorage.LocalStorage
/// The protocol of stores a `DataStack` migrates (local ones and server ones), available with
/// `import CoreStore` alone.
public typealias UpgradableStorage = CoreStoreStorage.UpgradableStorage
/// The failures storage engines report (inside `CoreStoreError.storageFailure`), available with
/// `import CoreStore` alone.
public typealias StorageError = CoreStoreStorage.StorageError
/// A stored value, available with `import CoreStore` alone.
public typealias Value = CoreStoreStorage.Value
/// A model version's name, available with `import CoreStore` alone.
public typealias ModelVersion = CoreStoreStorage.ModelVersion
/// The kind of a migration step, available with `import CoreStore` alone.
public typealias MigrationType = CoreStoreStorage.MigrationType
/// The protocol of migration mapping providers, available with `import CoreStore` alone.
public typealias SchemaMappingProvider = CoreStoreStorage.SchemaMappingProvider
/// Custom migration mappings, available with `import CoreStore` alone.
public typealias CustomSchemaMappingProvider = CoreStoreStorage.CustomSchemaMappingProvider
/// Inferred migration mappings, available with `import CoreStore` alone.
public typealias InferredSchemaMappingProvider = CoreStoreStorage.InferredSchemaMappingProvider
/// A source object in a migration transformer, available with `import CoreStore` alone.
public typealias UnsafeSourceObject = CoreStoreStorage.UnsafeSourceObject
/// A destination object in a migration transformer, available with `import CoreStore` alone.
public typealias UnsafeDestinationObject = CoreStoreStorage.UnsafeDestinationObject
