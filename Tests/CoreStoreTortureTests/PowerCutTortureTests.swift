import Foundation
import Testing

/// A short version of `corestore torture power` (see `scripts/torture.sh` for the long one): a
/// committing child's file operations are recorded and replayed as power cuts at random moments
/// would leave them; after every cut the store opens, no commit is torn and, with `.full`
/// durability, every acknowledged commit is there.
@Suite("Power cuts", .serialized)
struct PowerCutTortureTests {
    static let cuts = 45
    static let commits = 12

    private func runPowerCuts(backend: String, durability: String, extra: [String] = []) throws -> (status: Int32, output: String) {
        try CorestoreExecutable.run([
            "torture", "power", "--backend", backend, "--durability", durability, "--cuts", "\(Self.cuts)",
            "--commits", "\(Self.commits)", "--accounts", "30", "--seed", "11",
        ] + extra)
    }

    @Test(arguments: ["sqlite", "lmdb", "leveldb"], ["full", "normal"])
    func noPowerCutTearsACommitOrLosesAnAcknowledgedOneItShouldKeep(backend: String, durability: String) throws {
        let (status, output) = try runPowerCuts(backend: backend, durability: durability)
        #expect(status == 0, "corestore torture power failed:\n\(output)")
        let summary = try #require(output.split(separator: "\n").last.map(String.init), "no output")
        let pattern = try Regex(
            "^\(backend): \(Self.cuts) cuts, 0 lost, 0 torn \\(durability \(durability), \(Self.commits) commits recorded; "
                + "unsynced writes dropped 15, prefix 15, subset 15; \\d+ cuts while opening, \\d+ unacknowledged commits kept, "
                + "(\\d+) cuts lost a tail of at most (\\d+) acknowledged commits, 0 errors\\)$"
        )
        let match = try #require(try pattern.wholeMatch(in: summary), "unexpected summary: \(summary)\n\(output)")
        if durability == "full" {
            #expect(match.output[1].substring == "0", "a .full store lost acknowledged commits: \(summary)")
        }
    }

    /// The check is not blind: SQLite with `.normal` durability syncs its WAL only at
    /// checkpoints, so power cuts lose acknowledged commits, which the `.full` promise forbids.
    @Test
    func powerCutsThatLoseAcknowledgedCommitsAreReported() throws {
        let (status, output) = try runPowerCuts(backend: "sqlite", durability: "normal", extra: ["--promise", "full"])
        #expect(status != 0, "losses went unreported:\n\(output)")
        #expect(output.contains("LOST — commit"), "no lost commit reported:\n\(output)")
        #expect(output.contains(" 0 torn "), "a .normal store tore a commit:\n\(output)")
    }
}
