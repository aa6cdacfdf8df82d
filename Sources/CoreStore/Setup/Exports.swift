import CoreStoreStorage
import CoreStoreInMemory

/// The in-memory store, available with `import CoreStore` alone.
public typealias InMemoryStore = CoreStoreInMemory.InMemoryStore
/// The storage contract, available with `import CoreStore` alone.
public typealias StorageInterface = CoreStoreStorage.StorageInterface
/// Relationship delete rules, available with `import CoreStore` alone.
public typealias DeleteRule = CoreStoreStorage.DeleteRule
