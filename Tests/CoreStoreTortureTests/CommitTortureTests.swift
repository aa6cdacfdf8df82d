import Foundation
import Testing

/// A short version of `corestore torture commits` (see `scripts/torture.sh` for the long one):
/// a process committing transfers is killed with SIGKILL at random moments; after every kill
/// the store opens, no commit is torn and every acknowledged commit is there.
@Suite("Killed commits", .serialized)
struct CommitTortureTests {
    static let kills = 12

    @Test(arguments: ["sqlite", "lmdb", "leveldb"])
    func noKilledCommitIsLostOrTorn(backend: String) throws {
        let (status, output) = try CorestoreExecutable.run([
            "torture", "commits", "--backend", backend, "--kills", "\(Self.kills)", "--accounts", "50", "--seed", "7",
        ])
        #expect(status == 0, "corestore torture commits failed:\n\(output)")
        let summary = try #require(output.split(separator: "\n").last.map(String.init), "no output")
        let pattern = try Regex("^\(backend): (\\d+) kills, (\\d+) commits acknowledged, 0 lost, 0 torn \\(durability full, \\d+ killed while opening, \\d+ unacknowledged commits kept, 0 errors\\)$")
        let match = try #require(try pattern.wholeMatch(in: summary), "unexpected summary: \(summary)\n\(output)")
        #expect(Int(match.output[1].substring ?? "") == Self.kills)
        // The children got work done between kills, so the kills landed among commits.
        #expect((Int(match.output[2].substring ?? "") ?? 0) > 0, "no commit was acknowledged: \(summary)")
    }
}
