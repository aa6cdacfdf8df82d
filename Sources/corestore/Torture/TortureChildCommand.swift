import ArgumentParser
import CoreStore
import Foundation

/// `corestore torture migrate-child` (hidden): the process `torture migrations` kills. Adds one
/// V1 store to a stack declaring V1 → V2, which migrates it, and prints a line per progress
/// report (`progress 0.4000`), then `migrated`. Lines are written unbuffered, so the parent
/// sees each as it happens.
struct TortureChildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-child",
        abstract: "Migrate one store V1 → V2, printing progress (run by 'torture migrations').",
        shouldDisplay: false
    )

    /// The line printed once the store is migrated and added.
    static let migratedLine = "migrated"
    /// The prefix of a progress line, followed by the fraction completed.
    static let progressPrefix = "progress "

    @Option(help: "The store kind.")
    var backend: TortureBackend

    @Option(help: "The store's file or directory.")
    var path: String

    @Option(help: "The V1 → V2 step: \(TortureMigration.allCases.map(\.rawValue).joined(separator: ", ")).")
    var migration: TortureMigration

    func run() async throws {
        CoreStoreDefaults.logger = DefaultLogger(minimumLevel: .warning)
        let store = backend.makeStore(at: URL(fileURLWithPath: path), migration: migration)
        let stack = TortureStacks.migrating()
        try await Self.migrate(store, in: stack) { fraction in
            TortureChildOutput.emit(Self.progressPrefix + String(format: "%.4f", fraction))
        }
        TortureChildOutput.emit(Self.migratedLine)
    }

    /// Adds `store` to `stack` through `dataStack.async.addStorage`, calling `report` with the
    /// fraction completed of every progress report.
    static func migrate<T: LocalStorage>(_ store: T, in stack: DataStack, report: (Double) -> Void = { _ in }) async throws {
        for try await progress in stack.async.addStorage(store) where !progress.isCompleted {
            report(progress.fractionCompleted)
        }
    }
}
