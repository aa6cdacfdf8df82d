import Foundation
import Testing

/// A short version of `corestore torture damage`: copies of a store are damaged the way disks
/// damage files (flipped bytes, zeroed or overwritten pages, truncated or deleted files) and
/// opened in a child process each. Nothing may crash or hang; on the key-value stores nothing may
/// read back wrong; a store refused when opening keeps its files as they were.
@Suite("Damaged stores", .serialized)
struct DamagedStoreTests {
    static let stores = 40

    private func damage(_ backend: String) throws -> (status: Int32, output: String, summary: Regex<AnyRegexOutput>.Match) {
        let (status, output) = try CorestoreExecutable.run(["torture", "damage", "--backend", backend, "--stores", "\(Self.stores)", "--seed", "3"])
        let summary = try #require(output.split(separator: "\n").last.map(String.init), "no output")
        let pattern = try Regex(
            "^\(backend): \(Self.stores) damaged stores: (\\d+) refused \\((\\d+) when opening\\), (\\d+) exact, (\\d+) wrong, "
                + "(\\d+) crashed, (\\d+) hung \\((\\d+) stores refused when opening were modified\\)$"
        )
        let match = try #require(try pattern.wholeMatch(in: summary), "unexpected summary: \(summary)\n\(output)")
        return (status, output, match)
    }

    /// The key-value stores check a checksum before they use what they read (LMDB on every record
    /// and index entry, and it is opened with `verifiesOnOpen`; LevelDB on every table block, as
    /// LevelDB's `verify_checksums` reads, and on its log at open): nothing reads back wrong, and
    /// a store refused when opening keeps its files.
    @Test(arguments: ["leveldb", "lmdb"])
    func aDamagedKeyValueStoreIsRefusedOrReadsBackExactly(backend: String) throws {
        let (status, output, match) = try damage(backend)
        #expect(status == 0, "corestore torture damage failed:\n\(output)")
        #expect(match.output[4].substring == "0" && match.output[5].substring == "0" && match.output[6].substring == "0", "\(output)")
        #expect(match.output[7].substring == "0", "a refused store was modified:\n\(output)")
        // Both outcomes happen, so the damage reached data the store reads.
        #expect(match.output[1].substring != "0" && match.output[3].substring != "0", "\(output)")
    }

    /// SQLite never crashes or hangs on a damaged store, and a refused open leaves the files as
    /// they were. It keeps no checksum of row data, so a flipped byte inside a row can read back
    /// changed (`docs/RELIABILITY.md` says so): that, and only that, may read back wrong.
    @Test(arguments: ["sqlite"])
    func aDamagedStoreNeverCrashesOrHangsAndOnlyFlippedRecordBytesGoUnnoticed(backend: String) throws {
        let (_, output, match) = try damage(backend)
        #expect(match.output[5].substring == "0" && match.output[6].substring == "0", "\(output)")
        #expect(match.output[7].substring == "0", "a refused store was modified:\n\(output)")
        let wrong = output.split(separator: "\n").filter { $0.contains("→ wrong") }
        #expect(wrong.count == Int(match.output[4].substring ?? ""), "\(output)")
        for line in wrong {
            #expect(line.contains("flipped bytes in"), "damage other than flipped bytes read back wrong: \(line)")
        }
        #expect(match.output[1].substring != "0", "\(output)")
    }
}
