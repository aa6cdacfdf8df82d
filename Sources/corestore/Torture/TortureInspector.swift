import CoreStore
import Foundation

/// What a store was found to be after a run.
enum TortureFinding {
    /// At V1 with all its V1 data; migrating it again worked and gave the expected V2 data.
    case atV1
    /// At V2 with exactly the data the migration produces.
    case atV2
    /// Objects (or the whole store) are gone.
    case lost(String)
    /// The store is neither an intact V1 nor an intact V2.
    case torn(String)
    /// Something failed that says nothing about the store's state (a second migration, a fetch).
    case error(String)
}

/// Opens a store after a run and tells what it holds, against the ledger it was seeded with.
struct TortureInspector {
    let backend: TortureBackend
    let ledger: TortureLedger

    /// Inspects the store at `url`, which `migration` was taking from V1 to V2; a store found at
    /// V1 is migrated again (and must then be at V2).
    func inspect(_ url: URL, migration: TortureMigration) async -> TortureFinding {
        guard FileManager.default.fileExists(atPath: url.path) else { return .lost("the store is gone") }
        let migrationTypes: [MigrationType]
        do {
            migrationTypes = try TortureStacks.migrating().requiredMigrationsForStorage(backend.makeStore(at: url, migration: migration))
        } catch {
            return .torn("the store does not open: \(error)")
        }
        if migrationTypes.isEmpty {
            return checkV2(url, migration: migration) ?? .atV2
        }
        guard migration.isTheStep(migrationTypes) else {
            return .torn("the store needs \(migrationTypes), neither nothing (V2) nor the step from V1")
        }
        if let finding = checkV1(url) { return finding }
        // The stack that migrates the store again is the one that checks it: the store stays
        // added to it, so no other stack can race for it.
        let stack = TortureStacks.migrating()
        do {
            try await TortureChildCommand.migrate(backend.makeStore(at: url, migration: migration), in: stack)
        } catch {
            return .error("the store is intact at V1 but migrating it again failed: \(error)")
        }
        if let finding = check(stack, migration: migration, read: TortureSnapshot.readV2) {
            return .error("the store was intact at V1 but migrating it again gave: \(finding)")
        }
        return .atV1
    }

    /// Throws unless the freshly seeded store at `url` holds the ledger at V1 (and is closed
    /// again, since the stack that checked it is gone).
    func verifyTemplate(_ url: URL) throws {
        if let finding = checkV1(url) { throw TortureSetupError(message: "the seeded template store is wrong: \(finding)") }
    }

    /// `nil` when the store opens at V1 with every V1 object and value, else what is wrong.
    private func checkV1(_ url: URL) -> TortureFinding? {
        let stack = TortureStacks.v1()
        if let finding = add(url, to: stack, migration: nil) { return finding }
        return check(stack, migration: nil, read: TortureSnapshot.readV1)
    }

    /// `nil` when the store opens at V2 with exactly what `migration` produces, else what is wrong.
    private func checkV2(_ url: URL, migration: TortureMigration) -> TortureFinding? {
        let stack = TortureStacks.migrating()
        if let finding = add(url, to: stack, migration: migration) { return finding }
        return check(stack, migration: migration, read: TortureSnapshot.readV2)
    }

    private func add(_ url: URL, to stack: DataStack, migration: TortureMigration?) -> TortureFinding? {
        do {
            try stack.addStorageAndWait(backend.makeStore(at: url, migration: migration))
            return nil
        } catch {
            return .torn("the store does not open at \(stack.modelVersion): \(error)")
        }
    }

    /// Compares what `stack` holds with the ledger at V1 (`migration == nil`) or after `migration`.
    private func check(_ stack: DataStack, migration: TortureMigration?, read: (DataStack) throws -> TortureSnapshot) -> TortureFinding? {
        let version = migration == nil ? "V1" : "V2"
        let snapshot: TortureSnapshot
        do {
            snapshot = try read(stack)
        } catch {
            return .error("fetching the store at \(version) failed: \(error)")
        }
        let differences = snapshot.differences(from: .expected(from: ledger, after: migration), totalBalance: ledger.totalBalance)
        if differences.isEmpty { return nil }
        let report = "at \(version): \(differences.summary)"
        return differences.missing.isEmpty ? .torn(report) : .lost(report)
    }
}

/// The torture run could not start.
struct TortureSetupError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
