import Foundation
import Testing
import CoreStore
import CoreStoreSQLite
import CSQLite
import CSQLiteFaultVFS

/// Disk faults below SQLite (a fault-injecting VFS, `Tests/CSQLiteFaultVFS`): every read, write
/// and sync of one commit is made to fail in turn. Each failing commit throws a
/// `CoreStoreError`, what the stack fetches and what a list monitor shows do not change, the same
/// commit succeeds once the fault clears, and the database reopened holds exactly that. (A read
/// that fails after the commit point leaves the commit complete, everywhere.)
@Suite("SQLite under injected disk faults", .serialized)
struct SQLiteFaultInjectionTests {
    static let installed: Bool = corestore_fault_vfs_install() == SQLITE_OK

    static func stack(at file: URL) throws -> DataStack {
        let stack = DataStack(CoreStoreSchema(modelVersion: "V1", entities: [
            Entity<Creature>("Creature", isAbstract: true), Entity<Lion>("Lion"), Entity<Snake>("Snake"), Entity<Zoo>("Zoo"),
        ]))
        try stack.addStorageAndWait(SQLiteStore(fileURL: file))
        return stack
    }

    /// Every creature with its zoo, by name.
    static func state(_ stack: DataStack) throws -> [String] {
        try stack.fetchAll(From<Creature>().orderBy(.ascending(\.$name))).map { "\($0.name)@\($0.zoo?.name ?? "-")" }
    }

    static let seeded = ["Leo@Z", "Sid@Z"]
    static let afterScenario = ["Leo@Z2", "Nala@Z2"]

    static func seed(_ stack: DataStack) throws {
        try stack.perform(synchronous: { t in
            let zoo = t.create(Into<Zoo>())
            zoo.name = "Z"
            let leo = t.create(Into<Lion>())
            leo.name = "Leo"
            leo.zoo = zoo
            let sid = t.create(Into<Snake>())
            sid.name = "Sid"
            sid.zoo = zoo
        })
    }

    /// Inserts, updates, relates and deletes in one commit.
    static func scenario(_ stack: DataStack) throws {
        try stack.perform(synchronous: { t in
            let zoo = try #require(try t.fetchOne(From<Zoo>()))
            zoo.name = "Z2"
            let nala = t.create(Into<Lion>())
            nala.name = "Nala"
            nala.zoo = zoo
            t.delete(try t.fetchOne(From<Creature>().where(\.$name == "Sid")))
        })
    }

    // SQLite's extended I/O error codes (macros Swift does not import).
    static let ioErrRead = SQLITE_IOERR | (1 << 8)
    static let ioErrWrite = SQLITE_IOERR | (3 << 8)
    static let ioErrFsync = SQLITE_IOERR | (4 << 8)

    static let operations: [(corestore_fault_operation, String, Int32)] = [
        (CORESTORE_FAULT_READ, "read", ioErrRead),
        (CORESTORE_FAULT_WRITE, "write", ioErrWrite),
        (CORESTORE_FAULT_SYNC, "sync", ioErrFsync),
    ]

    @Test func everyFaultOfACommitChangesNothing() throws {
        try #require(Self.installed)
        let directory = try TemporaryDirectory()
        // Count what one commit does, with nothing failing.
        var counts: [Int] = []
        do {
            let file = directory.file("probe.sqlite")
            let stack = try Self.stack(at: file)
            try Self.seed(stack)
            corestore_fault_vfs_watch(file.path)
            try Self.scenario(stack)
            counts = Self.operations.map { Int(corestore_fault_vfs_count($0.0)) }
            corestore_fault_vfs_watch(nil)
        }
        #expect(counts[1] > 0 && counts[2] > 0, "writes and syncs of a commit: \(counts)")
        var failures = 0
        var afterCommitPoint: [String] = []
        for (index, (operation, name, code)) in Self.operations.enumerated() {
            for n in 0..<counts[index] {
                let label = "\(name) #\(n + 1)"
                let file = directory.file("\(name)-\(n).sqlite")
                do {
                    let stack = try Self.stack(at: file)
                    try Self.seed(stack)
                    let queue = DispatchQueue(label: "monitor")
                    let monitor = try stack.monitorList(From<Creature>().orderBy(.ascending(\.$name)), deliveryQueue: queue)
                    corestore_fault_vfs_watch(file.path)
                    // Alternate the error with a full disk for writes.
                    corestore_fault_vfs_fail(operation, Int32(n), operation == CORESTORE_FAULT_WRITE && n % 2 == 1 ? SQLITE_FULL : code)
                    let failed: Bool
                    do {
                        try Self.scenario(stack)
                        failed = false
                    } catch {
                        failed = true
                    }
                    corestore_fault_vfs_clear()
                    queue.sync {}
                    if failed {
                        failures += 1
                        #expect(try Self.state(stack) == Self.seeded, "\(label)")
                        #expect(monitor.objectsInAllSections().map(\.name) == ["Leo", "Sid"], "\(label)")
                        // The fault is over: the same commit succeeds.
                        try Self.scenario(stack)
                        queue.sync {}
                    } else {
                        // A read after the commit point (the stack refreshing its objects)
                        // failed: the commit is complete, and so is what the stack shows.
                        afterCommitPoint.append(label)
                    }
                    #expect(try Self.state(stack) == Self.afterScenario, "\(label)")
                    #expect(monitor.objectsInAllSections().map(\.name) == ["Leo", "Nala"], "\(label)")
                    corestore_fault_vfs_watch(nil)
                }
                let reopened = try Self.stack(at: file)
                #expect(try Self.state(reopened) == Self.afterScenario, "\(label): reopened")
            }
        }
        // Every write and sync fault fails the commit; only reads may come after its end.
        #expect(afterCommitPoint.allSatisfy { $0.hasPrefix("read") }, "\(afterCommitPoint)")
        #expect(failures >= counts[1] + counts[2], "\(failures) failed commits for \(counts)")
    }

    @Test func aCommitWhoseSyncFailsIsNotThereAfterReopening() throws {
        try #require(Self.installed)
        let directory = try TemporaryDirectory()
        let file = directory.file()
        do {
            let stack = try Self.stack(at: file)
            try Self.seed(stack)
            corestore_fault_vfs_watch(file.path)
            corestore_fault_vfs_fail(CORESTORE_FAULT_SYNC, 0, Self.ioErrFsync)
            #expect(throws: CoreStoreError.self) { try Self.scenario(stack) }
            corestore_fault_vfs_watch(nil)
            #expect(try Self.state(stack) == Self.seeded)
        }
        let reopened = try Self.stack(at: file)
        #expect(try Self.state(reopened) == Self.seeded)
    }
}
