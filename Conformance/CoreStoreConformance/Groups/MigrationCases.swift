import Foundation
import CoreStore
import CoreStoreStorage

/// Progressive migrations through the user API: `DataStack`s of several model versions add a
/// store written by an earlier version, with inferred and custom mappings, migration chains,
/// forecasts, progress reports, options and errors.
///
/// The cases need ``StorageCapabilities/persistent`` and ``OptionalStorageProtocol/migratable``:
/// a `DataStack` migrates only an `UpgradableStorage` (whose `migrationMappingProviders` and
/// `localStorageOptions` say how) that is a `MigratableStorage` (a local store, or a server's
/// such as `PostgresStore`), and only a store that keeps its data when closed has anything to
/// migrate. Stores are written by a stack of the old version, closed, and reopened
/// through ``StorageFactory/reopen(_:migrationMappingProviders:localStorageOptions:)``.
enum MigrationCases {
    static func c(_ name: String, _ body: @escaping @Sendable (ConformanceContext) throws -> Void) -> ConformanceCase {
        ConformanceCase(name, group: "migrations", level: .api, requires: [.persistent], adopts: [.migratable], body: body)
    }

    static let all: [ConformanceCase] = inferredCases + customCases + transformerCases + chainCases + forecastCases
        + progressCases + errorCases + optionCases + batchCases

    /// A new store written by `populate` through a stack of `schema`; closed, its stack gone.
    static func seeded(_ ctx: ConformanceContext, _ schema: CoreStoreSchema, _ populate: (DataStack) throws -> Void) throws -> any StorageInterface {
        try APICases.populatedStore(ctx, schema, populate)
    }

    /// A new instance over the data of `store` with `providers` and `options`, as the
    /// `UpgradableStorage` a `DataStack` migrates.
    static func local(
        _ ctx: ConformanceContext, over store: any StorageInterface,
        providers: [any SchemaMappingProvider] = [], options: LocalStorageOptions = .none
    ) throws -> any UpgradableStorage {
        let instance = try ctx.instance(over: store, migrationMappingProviders: providers, localStorageOptions: options)
        return try upgradable(ctx, instance)
    }

    /// `store` as the `UpgradableStorage` the cases' stores are (``OptionalStorageProtocol/migratable``).
    static func upgradable(_ ctx: ConformanceContext, _ store: any StorageInterface) throws -> any UpgradableStorage {
        guard let upgradable = store as? any UpgradableStorage else {
            try ctx.fail("\(store.storeDescription) is not an UpgradableStorage, though the factory's first store was one")
        }
        return upgradable
    }

    /// What `addStorage(_:completion:)` returned and then reported.
    struct Addition {
        /// The returned progress.
        let progress: Progress?
        /// What the completion received.
        let result: Result<Void, CoreStoreError>
    }

    /// Adds `storage` with `addStorage(_:completion:)` and waits for the completion.
    static func add(_ ctx: ConformanceContext, _ stack: DataStack, _ storage: any UpgradableStorage) throws -> Addition {
        try addOpened(ctx, stack, storage)
    }

    private static func addOpened<T: UpgradableStorage>(_ ctx: ConformanceContext, _ stack: DataStack, _ storage: T) throws -> Addition {
        let completion = Completion<SetupResult<T>>()
        let progress: Progress? = stack.addStorage(storage) { completion.deliver($0) }
        let result = try completion.wait(ctx, "the completion of addStorage(_:completion:)")
        return Addition(progress: progress, result: result.map { _ in () })
    }

    /// `stack` after adding a new instance over `store` (with `providers` and `options`) through
    /// `addStorage(_:completion:)`; fails the case when adding it fails.
    @discardableResult
    static func migrated(
        _ ctx: ConformanceContext, _ store: any StorageInterface, _ stack: DataStack,
        providers: [any SchemaMappingProvider] = [], options: LocalStorageOptions = .none
    ) throws -> DataStack {
        let addition = try add(ctx, stack, try local(ctx, over: store, providers: providers, options: options))
        if case .failure(let error) = addition.result {
            try ctx.fail("adding the store to a stack of model version '\(stack.modelVersion)' failed: \(error.debugDescription)")
        }
        return stack
    }

    /// The forecast of adding a new instance over `store` (with `providers`) to `stack`.
    static func forecast(_ ctx: ConformanceContext, _ store: any StorageInterface, _ stack: DataStack, providers: [any SchemaMappingProvider] = []) throws -> [MigrationType] {
        let storage = try local(ctx, over: store, providers: providers)
        do throws(CoreStoreError) {
            return try stack.requiredMigrationsForStorage(storage)
        } catch {
            try ctx.fail("requiredMigrationsForStorage threw \(error.debugDescription)")
        }
    }

    /// Fails unless `result` is a failure accepted by `matching` (`expected` names it).
    @discardableResult
    static func expectFailure(
        _ ctx: ConformanceContext, _ result: Result<Void, CoreStoreError>, _ what: String, expected: String,
        matching: (CoreStoreError) -> Bool
    ) throws -> CoreStoreError {
        switch result {
        case .success:
            try ctx.fail("\(what) succeeded, expected \(expected)")
        case .failure(let error):
            try ctx.expect(matching(error), "\(what) failed with \(error.debugDescription), expected \(expected)")
            return error
        }
    }

    /// Runs `body` with a stack of `schema` over a new instance of `store`'s data (no providers,
    /// no options), then lets the stack go (closing the store).
    static func withStack<R>(_ ctx: ConformanceContext, over store: any StorageInterface, _ schema: CoreStoreSchema, _ body: (DataStack) throws -> R) throws -> R {
        let stack: DataStack
        do {
            stack = try APICases.reopenedStack(ctx, store, schema)
        } catch let error as CoreStoreError {
            try ctx.fail("reopening the store with a stack of model version '\(schema.modelVersion)' failed: \(error.debugDescription)")
        }
        return try body(stack)
    }

    /// Fails unless a stack of "V1" alone (which cannot migrate anything) opens `store` and reads
    /// exactly the books of ``BooksSeed``: the store kept its version and its data.
    static func expectBooksKeptV1(_ ctx: ConformanceContext, _ store: any StorageInterface, _ what: String) throws {
        let books = try withStack(ctx, over: store, BooksV1.schema(), BooksSeed.readV1)
        try ctx.expectEqual(books, ["Dune:5", "Emma:4", "Ulysses:4"], "books read by a V1 stack \(what)")
    }

    static func isMappingModelNotFound(_ error: CoreStoreError) -> Bool {
        if case .mappingModelNotFound = error { return true }
        return false
    }

    static func isAsynchronousMigrationRequired(_ error: CoreStoreError) -> Bool {
        if case .asynchronousMigrationRequired = error { return true }
        return false
    }
}

/// A value delivered once, from any thread, waited for by a case. On the main thread the wait
/// runs the main run loop, since `addStorage(_:completion:)` calls back on the main queue (the
/// command-line tool runs the cases there).
final class Completion<T>: @unchecked Sendable {
    private let lock = NSLock()
    private let delivered = DispatchSemaphore(value: 0)
    private var value: T?

    /// Stores the value (the first one wins).
    func deliver(_ value: T) {
        let first = lock.withLock { () -> Bool in
            guard self.value == nil else { return false }
            self.value = value
            return true
        }
        if first { delivered.signal() }
    }

    /// The value, once delivered; fails the case after two minutes.
    func wait(_ ctx: ConformanceContext, _ what: String) throws -> T {
        let deadline = Date().addingTimeInterval(120)
        if Thread.isMainThread {
            while Date() < deadline {
                if let value = lock.withLock({ value }) { return value }
                _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01))
            }
        } else if delivered.wait(timeout: .now() + 120) == .success, let value = lock.withLock({ value }) {
            return value
        }
        try ctx.fail("\(what) was not called within 120 seconds")
    }
}
