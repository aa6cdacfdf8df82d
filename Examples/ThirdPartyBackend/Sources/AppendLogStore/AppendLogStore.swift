import Foundation
import CoreStoreKeyValue
import CoreStoreStorage

/// A CoreStore store in one append-only log file: `try dataStack.addStorageAndWait(AppendLogStore(fileURL: url))`.
public final class AppendLogStore: KeyValueStorageWrapper, LocalStorage, Sendable {
    public let fileURL: URL
    public let localStorageOptions: LocalStorageOptions
    public let keyValueStorage: KeyValueStorage<AppendLogEngine>

    public init(fileURL: URL, configuration: String? = nil, localStorageOptions: LocalStorageOptions = .none) {
        self.fileURL = fileURL
        self.localStorageOptions = localStorageOptions
        self.keyValueStorage = KeyValueStorage(engine: AppendLogEngine(fileURL: fileURL), configuration: configuration)
    }
}
