import Foundation
import CoreStoreStorage

/// What a case body works with: fresh stores from the factory, a reopen helper, and checks
/// that fail with a message naming the case and what differed.
public final class ConformanceContext {
    /// `group/name` of the running case.
    public let caseID: String
    /// The factory under test.
    public let factory: any StorageFactory
    /// The capabilities the factory's stores declare.
    public let capabilities: StorageCapabilities
    private var stores: [any StorageInterface] = []

    init(caseID: String, factory: any StorageFactory, capabilities: StorageCapabilities) {
        self.caseID = caseID
        self.factory = factory
        self.capabilities = capabilities
    }

    /// A new, empty, closed store; closed again when the case ends.
    public func newStore(configuration: String? = nil) throws -> any StorageInterface {
        let store = try factory.makeStorage(configuration: configuration)
        stores.append(store)
        return store
    }

    /// A new store opened with `schema`; fails unless the open reports a new store.
    public func openStore(schema: StoreSchema = Fixtures.schema) throws -> any StorageInterface {
        let store = try newStore()
        let metadata = try store.open(schema: schema)
        try expect(metadata == nil, "open(schema:) of a new store returned \(String(describing: metadata)), expected nil")
        return store
    }

    /// Closes `store`, makes a new instance over its data with the factory and opens it with
    /// `schema`; returns the new instance and what its `open` returned.
    public func reopen(_ store: any StorageInterface, schema: StoreSchema = Fixtures.schema) throws -> (any StorageInterface, StoredMetadata?) {
        store.close()
        let reopened = try factory.reopen(store)
        stores.append(reopened)
        let metadata = try reopened.open(schema: schema)
        return (reopened, metadata)
    }

    /// A new, closed instance over the data of `store` (closed first), from the factory's
    /// `reopen`; closed again when the case ends.
    public func instance(over store: any StorageInterface) throws -> any StorageInterface {
        store.close()
        return try sharingInstance(over: store)
    }

    /// A second instance over the data of `store`, which stays open (for stores that share
    /// access); closed when the case ends.
    public func sharingInstance(over store: any StorageInterface) throws -> any StorageInterface {
        let instance = try factory.reopen(store)
        stores.append(instance)
        return instance
    }

    /// A new, closed instance over the data of `store` (closed first) that migrates with
    /// `migrationMappingProviders` and has `localStorageOptions`, from the factory's
    /// ``StorageFactory/reopen(_:migrationMappingProviders:localStorageOptions:)``; closed again
    /// when the case ends. A factory that cannot pass them fails the case saying so.
    public func instance(
        over store: any StorageInterface, migrationMappingProviders: [any SchemaMappingProvider],
        localStorageOptions: LocalStorageOptions
    ) throws -> any StorageInterface {
        store.close()
        let instance: any StorageInterface
        do {
            instance = try factory.reopen(store, migrationMappingProviders: migrationMappingProviders, localStorageOptions: localStorageOptions)
        } catch let limitation as StorageFactoryLimitation {
            throw failure(limitation.description)
        }
        stores.append(instance)
        return instance
    }

    /// A failure of the running case.
    public func failure(_ message: String) -> ConformanceFailure {
        ConformanceFailure(caseID: caseID, message: message)
    }

    /// Fails the case with `message`.
    public func fail(_ message: String) throws -> Never {
        throw failure(message)
    }

    /// Fails the case with `message` unless `condition` holds.
    public func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw failure(message()) }
    }

    /// `value`, or a failure of the case naming `what` when it is `nil`.
    public func unwrap<T>(_ value: T?, _ what: @autoclosure () -> String) throws -> T {
        guard let value else { throw failure("\(what()) is missing") }
        return value
    }

    /// Fails the case unless `actual == expected`, naming `what` and both values.
    public func expectEqual<T: Equatable>(_ actual: T, _ expected: T, _ what: @autoclosure () -> String) throws {
        if actual != expected {
            throw failure("\(what()): got \(actual), expected \(expected)")
        }
    }

    /// Fails the case unless `body` throws a `StorageError` accepted by `matching`; returns it.
    @discardableResult
    public func expectError(
        _ what: @autoclosure () -> String, matching: (StorageError) -> Bool = { _ in true }, _ body: () throws -> Void
    ) throws -> StorageError {
        do {
            try body()
        } catch let error as StorageError {
            if matching(error) { return error }
            throw failure("\(what()): threw the wrong error: \(error)")
        } catch let error as ConformanceFailure {
            throw error
        } catch {
            throw failure("\(what()): threw \(error), which is not a StorageError")
        }
        throw failure("\(what()): did not throw")
    }

    func finish() {
        for store in stores { store.close() }
        stores.removeAll()
    }
}
