import Foundation
import Testing

/// Real processes on one SQLite file: `corestore torture shared --sqlite` starts several copies
/// of the `corestore` executable, each committing one entry per transaction with a list monitor
/// on every entry. Their keys and sequences come from the counters file they all map: no entry
/// may be lost or reported twice, and every monitor must end with the same list.
@Suite("Processes sharing a SQLite file")
struct SQLiteSharedProcessesTests {
    @Test func threeProcessesCommitAtOnceAndEveryMonitorSeesEveryCommit() throws {
        let (status, output) = try CorestoreExecutable.run(["torture", "shared", "--sqlite", "--processes", "3", "--commits", "40", "--timeout", "300"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("120 committed, 120…120 in each list, 0 lost, every monitor identical"), "\(output)")
    }
}
