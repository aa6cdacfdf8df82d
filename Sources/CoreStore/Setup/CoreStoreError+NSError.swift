import Foundation

/// The `NSError` codes of ``CoreStoreErrorDomain``: one per ``CoreStoreError`` case. CoreStore's
/// names are kept where CoreStore has the same failure.
public enum CoreStoreErrorCode: Int, Sendable {
    /// ``CoreStoreError/unknown(message:)``.
    case unknownError = 0
    /// ``CoreStoreError/storageAlreadyAdded(store:)``: the store (or another of this process on
    /// the same file) is already part of a stack.
    case differentStorageExistsAtURL = 1
    /// ``CoreStoreError/mappingModelNotFound(localStoreURL:targetModelVersion:reason:)``.
    case mappingModelNotFound = 2
    /// ``CoreStoreError/progressiveMigrationRequired(localStoreURL:)``.
    case progressiveMigrationRequired = 3
    /// ``CoreStoreError/asynchronousMigrationRequired(localStoreURL:NSError:)``.
    case asynchronousMigrationRequired = 4
    /// ``CoreStoreError/storageFailure(_:)``: the engine failed.
    case internalError = 5
    /// ``CoreStoreError/userError(error:)``.
    case userError = 6
    /// ``CoreStoreError/userCancelled``.
    case userCancelled = 7
    /// ``CoreStoreError/persistentStoreNotFound(entity:configuration:)``.
    case persistentStoreNotFound = 8
    /// ``CoreStoreError/ambiguousStore(entity:configurations:)``.
    case ambiguousStore = 9
    /// ``CoreStoreError/unknownEntity(typeName:)``.
    case unknownEntity = 10
    /// ``CoreStoreError/invalidSchema(message:)``.
    case invalidSchema = 11
    /// ``CoreStoreError/mismatchedVersionLock(modelVersion:expected:actual:)``.
    case mismatchedVersionLock = 12
    /// ``CoreStoreError/schemaMismatch(store:storedVersion:storedHash:expectedVersion:expectedHash:)``.
    case schemaMismatch = 13
    /// ``CoreStoreError/invalidPredicate(message:)``.
    case invalidPredicate = 14
    /// ``CoreStoreError/invalidObject(message:)``.
    case invalidObject = 15
    /// ``CoreStoreError/transactionMisuse(message:)``.
    case transactionMisuse = 16
    /// ``CoreStoreError/deleteDenied(entity:relationship:)``.
    case deleteDenied = 17
    /// ``CoreStoreError/relationshipCountViolation(entity:relationship:count:minimum:maximum:)``.
    case relationshipCountViolation = 18
    /// ``CoreStoreError/invalidImportSource(entity:sourceIndex:message:)``.
    case invalidImportSource = 19
    /// ``CoreStoreError/migrationFailed(localStoreURL:sourceVersion:destinationVersion:reason:)``.
    case migrationFailed = 20
    /// ``CoreStoreError/partialCommit(committedConfigurations:failedConfiguration:error:)``.
    case partialCommit = 21
}

extension CoreStoreError: CustomNSError {
    /// ``CoreStoreErrorDomain``.
    public static var errorDomain: String { CoreStoreErrorDomain }

    /// The case's ``CoreStoreErrorCode``.
    public var errorCode: Int { code.rawValue }

    /// The description under `NSLocalizedDescriptionKey` (so the bridged `NSError` reads as
    /// the error does), and the underlying error of a user error under `NSUnderlyingErrorKey`.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if case .userError(let error) = self { info[NSUnderlyingErrorKey] = error as NSError }
        return info
    }

    /// The case's code.
    public var code: CoreStoreErrorCode {
        switch self {
        case .unknown: return .unknownError
        case .userCancelled: return .userCancelled
        case .userError: return .userError
        case .persistentStoreNotFound: return .persistentStoreNotFound
        case .ambiguousStore: return .ambiguousStore
        case .unknownEntity: return .unknownEntity
        case .invalidSchema: return .invalidSchema
        case .mismatchedVersionLock: return .mismatchedVersionLock
        case .schemaMismatch: return .schemaMismatch
        case .storageAlreadyAdded: return .differentStorageExistsAtURL
        case .invalidPredicate: return .invalidPredicate
        case .invalidObject: return .invalidObject
        case .transactionMisuse: return .transactionMisuse
        case .deleteDenied: return .deleteDenied
        case .relationshipCountViolation: return .relationshipCountViolation
        case .storageFailure: return .internalError
        case .invalidImportSource: return .invalidImportSource
        case .mappingModelNotFound: return .mappingModelNotFound
        case .progressiveMigrationRequired: return .progressiveMigrationRequired
        case .asynchronousMigrationRequired: return .asynchronousMigrationRequired
        case .migrationFailed: return .migrationFailed
        case .partialCommit: return .partialCommit
        }
    }

    /// Any error as a `CoreStoreError`, as CoreStore converts them: a `CoreStoreError` as it
    /// is, a storage failure as ``storageFailure(_:)``, another error as
    /// ``userError(error:)``, and `nil` as ``unknown(message:)``.
    public init(_ error: (any Error)?) {
        self = error.map(Self.wrap) ?? .unknown(message: "An unknown error occurred.")
    }
}

extension CoreStoreError: Hashable {
    /// Two errors are equal when they are the same case with the same details: the same code
    /// and the same description (which spells out every associated value).
    public static func == (lhs: CoreStoreError, rhs: CoreStoreError) -> Bool {
        lhs.code == rhs.code && lhs.description == rhs.description
    }

    /// Hashes the code and the description.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(description)
    }
}

extension NSError: CoreStoreDebugStringConvertible {}
