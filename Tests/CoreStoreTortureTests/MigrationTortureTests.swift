import Foundation
import Testing

/// A short version of `corestore torture migrations` (see `scripts/torture.sh` for the long
/// one): migrations killed with SIGKILL at random moments leave every store intact at V1 or at V2.
/// The store is small (250 accounts, 750 objects) to keep the suite quick, also under
/// ThreadSanitizer, where the children are instrumented too; the long version's stores take
/// several batches per entity.
@Suite("Killed migrations", .serialized)
struct MigrationTortureTests {
    static let kills = 10

    @Test(arguments: ["sqlite", "lmdb", "leveldb"])
    func everyKilledMigrationLeavesV1OrV2(backend: String) throws {
        let (status, output) = try CorestoreExecutable.run([
            "torture", "migrations", "--backend", backend, "--kills", "\(Self.kills)", "--rows", "250", "--seed", "11",
        ])
        #expect(status == 0, "corestore torture migrations failed:\n\(output)")
        let summary = try #require(output.split(separator: "\n").last.map(String.init), "no output")
        let pattern = try Regex("^\(backend): (\\d+) kills, (\\d+) at V1, (\\d+) at V2, 0 lost, 0 torn \\(\\d+ killed twice, \\d+ uninterrupted runs, \\d+ finished before their kill, 0 errors\\)$")
        let match = try #require(try pattern.wholeMatch(in: summary), "unexpected summary: \(summary)\n\(output)")
        let counts = (1...3).map { Int(match.output[$0].substring ?? "") }
        #expect(counts[0] == Self.kills)
        #expect((counts[1] ?? 0) + (counts[2] ?? 0) == Self.kills)
    }

    @Test func theExecutableIsBesideTheTestBundle() {
        #expect(CorestoreExecutable.url != nil, "looked in \(CorestoreExecutable.candidates.map(\.path))")
    }
}
