import Foundation
import CoreStoreStorage

/// Every failure the framework reports: thrown by its methods and passed to completion handlers.
///
/// Each case carries what is needed to understand the problem without a debugger; its
/// `description` reads as a sentence.
public enum CoreStoreError: Error, CustomStringConvertible, CustomDebugStringConvertible {
    /// A failure that fits no other case.
    case unknown(message: String)
    /// The transaction was cancelled with `cancel()`; nothing was saved.
    case userCancelled
    /// The transaction closure threw `error`; nothing was saved.
    case userError(error: any Error)
    /// No store added to the stack holds `entity` (or none for the requested configuration).
    case persistentStoreNotFound(entity: String, configuration: String?)
    /// More than one store holds `entity`; name a configuration in `Into`/`From`.
    case ambiguousStore(entity: String, configurations: [String?])
    /// The class is not part of the stack's schema.
    case unknownEntity(typeName: String)
    /// The schema's entities and relationships do not describe a valid model.
    case invalidSchema(message: String)
    /// The schema's version lock does not match its entities.
    case mismatchedVersionLock(modelVersion: String, expected: String, actual: String)
    /// The store holds data of another model (version or schema hash) and was left untouched.
    case schemaMismatch(store: String, storedVersion: String, storedHash: String, expectedVersion: String, expectedHash: String)
    /// The store (same instance, or same file) is already added to a stack.
    case storageAlreadyAdded(store: String)
    /// A predicate, key, sort or request is not valid for the entity.
    case invalidPredicate(message: String)
    /// An object was used where it does not belong: another stack, another transaction, a
    /// deleted object, or a read-only context.
    case invalidObject(message: String)
    /// A transaction was used wrongly: after it ended, from inside itself, or committed twice.
    case transactionMisuse(message: String)
    /// A delete rule of `deny` blocked the commit.
    case deleteDenied(entity: String, relationship: String)
    /// A to-many relationship holds fewer or more objects than its declared bounds.
    case relationshipCountViolation(entity: String, relationship: String, count: Int, minimum: Int, maximum: Int)
    /// The storage engine failed; nothing was changed by the failing operation.
    case storageFailure(StorageError)
    /// An import source lacks a value the import needs, or holds one of the wrong type.
    /// `sourceIndex` is the source's position in the imported sequence (when known); the
    /// import call that met it changed nothing.
    case invalidImportSource(entity: String?, sourceIndex: Int?, message: String)
    /// The store at `localStoreURL` cannot be migrated to `targetModelVersion`: its version is not
    /// in the migration chain, a version has no schema, or a step cannot be mapped without losing
    /// data (`reason` says which). Found before anything is changed.
    case mappingModelNotFound(localStoreURL: URL, targetModelVersion: String, reason: String)
    /// The store needs more than one migration step, but its options contain
    /// `.preventProgressiveMigration`. The store was left untouched.
    case progressiveMigrationRequired(localStoreURL: URL)
    /// The store needs a migration that `addStorageAndWait` may not run (a heavyweight step, or
    /// no `.allowSynchronousLightweightMigration` option): add it with `addStorage(_:completion:)`.
    /// The store was left untouched.
    case asynchronousMigrationRequired(localStoreURL: URL, NSError: NSError)
    /// A migration step met a record that does not fit the new model version; the step was
    /// rolled back and the store keeps `sourceVersion`.
    case migrationFailed(localStoreURL: URL, sourceVersion: String, destinationVersion: String, reason: String)
    /// A commit that changed several stores saved its changes to the stores of
    /// `committedConfigurations`, then failed in the store of `failedConfiguration` for
    /// `error`. Each store's part is all or nothing, but stores cannot commit together: the
    /// saved parts are kept (the stack's objects and monitors follow them), and the changes to
    /// the failed store and any store after it stay pending in the transaction, which an unsafe
    /// transaction can commit again.
    indirect case partialCommit(committedConfigurations: [String?], failedConfiguration: String?, error: CoreStoreError)

    /// A one-sentence explanation.
    public var description: String {
        switch self {
        case .unknown(let message):
            return message
        case .userCancelled:
            return "The transaction was cancelled by the user; nothing was saved."
        case .userError(let error):
            return "The transaction closure threw an error, so nothing was saved: \(error)"
        case .persistentStoreNotFound(let entity, let configuration):
            return "No store in the DataStack holds entity '\(entity)'" + (configuration.map { " for configuration '\($0)'" } ?? "") + "."
        case .ambiguousStore(let entity, let configurations):
            return "Entity '\(entity)' lives in several stores (configurations \(configurations.map { $0 ?? "<default>" })); pass a configuration to Into/From."
        case .unknownEntity(let typeName):
            return "The type \(typeName) is not an entity of this DataStack's schema."
        case .invalidSchema(let message):
            return "Invalid schema: \(message)"
        case .mismatchedVersionLock(let version, let expected, let actual):
            return "The VersionLock of model version '\(version)' does not match its entities. Expected \(expected), but the entities hash to \(actual)."
        case .schemaMismatch(let store, let storedVersion, let storedHash, let expectedVersion, let expectedHash):
            return "The store \(store) holds model '\(storedVersion)' (hash \(storedHash)) but the DataStack expects '\(expectedVersion)' (hash \(expectedHash)); the store was left untouched."
        case .storageAlreadyAdded(let store):
            return "The store \(store) is already added to a DataStack."
        case .invalidPredicate(let message):
            return "Invalid fetch: \(message)"
        case .invalidObject(let message):
            return "Invalid object: \(message)"
        case .transactionMisuse(let message):
            return "Transaction misuse: \(message)"
        case .deleteDenied(let entity, let relationship):
            return "Cannot delete a '\(entity)' while its relationship '\(relationship)' is not empty (delete rule: deny)."
        case .relationshipCountViolation(let entity, let relationship, let count, let minimum, let maximum):
            return "'\(entity).\(relationship)' holds \(count) objects; it must hold at least \(minimum)" + (maximum > 0 ? " and at most \(maximum)." : ".")
        case .storageFailure(let error):
            return error.description
        case .invalidImportSource(let entity, let sourceIndex, let message):
            let source = sourceIndex.map { "the source at index \($0)" } ?? "a source"
            return "Cannot import \(source)" + (entity.map { " into '\($0)'" } ?? "") + ": \(message)."
        case .mappingModelNotFound(let url, let version, let reason):
            return "The store at \(Self.place(url)) cannot be migrated to model version '\(version)': \(reason) The store was left untouched."
        case .progressiveMigrationRequired(let url):
            return "The store at \(Self.place(url)) needs more than one migration step, but its options contain .preventProgressiveMigration; the store was left untouched."
        case .asynchronousMigrationRequired(let url, let error):
            return "The store at \(Self.place(url)) needs a migration that addStorageAndWait cannot run (\(error.localizedDescription)); add it with addStorage(_:completion:). The store was left untouched."
        case .migrationFailed(let url, let source, let destination, let reason):
            return "The migration of \(Self.place(url)) from '\(source)' to '\(destination)' failed and was rolled back (the store keeps '\(source)'): \(reason)"
        case .partialCommit(let committed, let failed, let error):
            let saved = committed.map(Self.storeName).joined(separator: ", ")
            return "The commit was saved in \(saved) but not in \(Self.storeName(failed)), whose changes stay pending: \(error.description)"
        }
    }

    /// A store as messages name it: by its configuration.
    private static func storeName(_ configuration: String?) -> String {
        configuration.map { "the '\($0)' store" } ?? "the store without configuration"
    }

    /// A store's location as messages show it: a file's path, or a server's URL (which never
    /// carries a password; see `UpgradableStorage.storeURL`).
    private static func place(_ url: URL) -> String {
        url.isFileURL ? url.path : url.absoluteString
    }

    /// The case name and its explanation.
    public var debugDescription: String {
        "CoreStoreError.\(caseName): \(description)"
    }

    private var caseName: String {
        switch self {
        case .unknown: return "unknown"
        case .userCancelled: return "userCancelled"
        case .userError: return "userError"
        case .persistentStoreNotFound: return "persistentStoreNotFound"
        case .ambiguousStore: return "ambiguousStore"
        case .unknownEntity: return "unknownEntity"
        case .invalidSchema: return "invalidSchema"
        case .mismatchedVersionLock: return "mismatchedVersionLock"
        case .schemaMismatch: return "schemaMismatch"
        case .storageAlreadyAdded: return "storageAlreadyAdded"
        case .invalidPredicate: return "invalidPredicate"
        case .invalidObject: return "invalidObject"
        case .transactionMisuse: return "transactionMisuse"
        case .deleteDenied: return "deleteDenied"
        case .relationshipCountViolation: return "relationshipCountViolation"
        case .storageFailure: return "storageFailure"
        case .invalidImportSource: return "invalidImportSource"
        case .mappingModelNotFound: return "mappingModelNotFound"
        case .progressiveMigrationRequired: return "progressiveMigrationRequired"
        case .asynchronousMigrationRequired: return "asynchronousMigrationRequired"
        case .migrationFailed: return "migrationFailed"
        case .partialCommit: return "partialCommit"
        }
    }

    /// Converts any error into a `CoreStoreError`: storage errors become `.storageFailure`,
    /// request errors `.invalidPredicate`, anything else thrown by user code `.userError`.
    static func wrap(_ error: any Error) -> CoreStoreError {
        switch error {
        case let error as CoreStoreError:
            return error
        case let error as StorageError:
            switch error {
            case .unknownKey, .invalidRequest, .unknownEntity:
                return .invalidPredicate(message: error.description)
            default:
                return .storageFailure(error)
            }
        default:
            return .userError(error: error)
        }
    }
}

/// The error domain of the `NSError`s the framework creates (inside
/// ``CoreStoreError/asynchronousMigrationRequired(localStoreURL:NSError:)``).
public let CoreStoreErrorDomain = "com.corestore.error"
