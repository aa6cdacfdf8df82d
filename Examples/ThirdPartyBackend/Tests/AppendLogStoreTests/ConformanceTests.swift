import Foundation
import Testing
import CoreStoreStorage
import CoreStoreConformance
import AppendLogStore

/// Makes append-log stores in a directory of their own: all the conformance suite needs.
struct AppendLogFactory: StorageFactory {
    let name = "AppendLogStore"
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("append-log-\(UUID().uuidString)", isDirectory: true)

    func makeStorage(configuration: String?) throws -> any StorageInterface {
        AppendLogStore(fileURL: directory.appendingPathComponent("\(UUID().uuidString).log"), configuration: configuration)
    }

    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface {
        guard let store = storage as? AppendLogStore else { throw StorageError.invalidRequest("not an AppendLogStore") }
        return AppendLogStore(fileURL: store.fileURL, configuration: store.configuration)
    }

    /// For the `migrations` group: a store over the same directory that migrates with
    /// `migrationMappingProviders` and has `localStorageOptions`.
    func reopen(
        _ storage: any StorageInterface, migrationMappingProviders: [any SchemaMappingProvider], localStorageOptions: LocalStorageOptions
    ) throws -> any StorageInterface {
        guard let store = storage as? AppendLogStore else { throw StorageError.invalidRequest("not an AppendLogStore") }
        return AppendLogStore(fileURL: store.fileURL, configuration: store.configuration,
                              migrationMappingProviders: migrationMappingProviders, localStorageOptions: localStorageOptions)
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Every case that applies to the store's capabilities (all of them: it is persistent and keeps
/// a local file).
@Test(arguments: ConformanceSuite.cases(applicableTo: AppendLogFactory()))
func conformance(_ c: ConformanceCase) throws {
    try c.run(with: AppendLogFactory())
}

/// The cases the store skips, with the capability it does not declare.
@Test func skippedCases() {
    let skips = ConformanceSuite.skips(for: AppendLogFactory())
    for skip in skips { print("SKIPPED \(skip)") }
    #expect(skips.count + ConformanceSuite.cases(applicableTo: AppendLogFactory()).count == ConformanceSuite.cases.count)
}

@Test func differential() throws {
    let factory = AppendLogFactory()
    defer { factory.cleanUp() }
    let report = try DifferentialRunner(seed: 20_261_123, sequences: 200).run(with: factory)
    #expect(report.mismatch == nil, "\(String(describing: report.mismatch))")
    #expect(report.sequencesRun == 200)
}
