import Foundation
import Testing
@testable import CoreStore
import CoreStoreStorage
import CSQLite
@testable import CoreStoreSQLite

/// In WAL mode the next record key and the commit sequence live in `<database>-counters`, which
/// every connection maps (`SQLiteCounterFile`): commits do not rewrite them in the database. What
/// a lost, stale, damaged or half-updated counters file must not do: give a key twice, move the
/// sequence back, or go unnoticed.
@Suite("SQLiteStore counters file")
struct SQLiteCounterFileTests {
    private func deleteAccount(_ stack: DataStack, _ email: String) throws {
        try stack.perform(synchronous: { transaction in
            transaction.delete(try transaction.fetchOne(From<Account>().where(\.$email == email)))
        })
    }

    /// A stack on a new store of the file at `url`, and the store.
    private func makeStoreAndStack(_ url: URL) throws -> (SQLiteStore, DataStack) {
        let store = SQLiteStore(fileURL: url)
        let stack = DataStack(sqliteTestSchema)
        try stack.addStorageAndWait(store)
        return (store, stack)
    }

    /// The 64-bit word `index` of the counters file beside `database` (1 the next key, 2 the
    /// pending sequence, 3 the committed one).
    private func word(_ index: Int, of database: URL) throws -> UInt64 {
        let data = try Data(contentsOf: URL(fileURLWithPath: database.path + SQLiteStore.sideFileSuffixes[3]))
        return data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self) }
    }

    private func setWord(_ index: Int, of database: URL, to value: UInt64) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: database.path + SQLiteStore.sideFileSuffixes[3]))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(index * 8))
        try handle.write(contentsOf: withUnsafeBytes(of: value.littleEndian) { Data($0) })
    }

    /// Copies the database and its log as a power cut would leave them, without the counters
    /// file (its pages may never have reached the disk).
    private func powerCutImage(of database: URL, in directory: TemporaryDirectory, named name: String) throws -> URL {
        let image = directory.file(name)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: database.path + suffix) {
            try FileManager.default.copyItem(atPath: database.path + suffix, toPath: image.path + suffix)
        }
        return image
    }

    @Test("Commits keep the counters in the counters file, not in the database")
    func commitsUseTheCounterFile() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let (store, stack) = try makeStoreAndStack(url)
        let start = try store.storedCommitSequence()
        let keys = try (0..<3).map { try insertAccount(stack, "a\($0)@example.com").recordID.key }
        #expect(try word(1, of: url) == UInt64(keys[2] + 1))
        #expect(try word(3, of: url) == start + 3)
        #expect(try word(2, of: url) == start + 3)
        #expect(try store.storedCommitSequence() == start + 3)
        let stored = try store.withReadConnection { try SQLiteMetadata.counters($0) }
        #expect(stored.sequence == 0 && stored.nextKey == 1, "a commit rewrote the counters in the database: \(stored)")
        store.close()
        let closed = try SQLiteStore(fileURL: url).inspectCounters()
        #expect(closed == CommitCounters(nextKey: keys[2] + 1, sequence: start + 3), "closing stores the counters in the database")
    }

    /// Another process's writer set its pending sequence (taking the writers' lock), committed,
    /// and is still at work or was killed before publishing the sequence.
    @Test("A writer between its commit and publishing it: readers wait for it while it holds its lock, and publish it once it let go", arguments: [false, true])
    func pendingSequenceIsPublished(writerHoldsItsLock: Bool) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let (store, stack) = try makeStoreAndStack(url)
        _ = try insertAccount(stack, "a@example.com")
        let sequence = try store.storedCommitSequence()
        let otherWriter = open(url.path + SQLiteStore.sideFileSuffixes[3], O_RDWR)
        #expect(otherWriter >= 0)
        defer { close(otherWriter) }
        if writerHoldsItsLock { #expect(corestore_ofd_share(otherWriter, 64) == 0) }
        try setWord(2, of: url, to: sequence + 1)
        #expect(try store.storedCommitSequence() == (writerHoldsItsLock ? sequence : sequence + 1))
        // The next commit, under SQLite's write lock, knows the other writer's COMMIT ended.
        _ = try insertAccount(stack, "b@example.com")
        #expect(try store.storedCommitSequence() == sequence + 2)
        #expect(try stack.fetchCount(From<Account>()) == 2)
    }

    @Test("A counters file whose words no store wrote is refused with a clear error, untouched")
    func implausibleCounterFile() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let store = SQLiteStore(fileURL: url)
        try DataStack(sqliteTestSchema).addStorageAndWait(store)
        store.close()
        try setWord(1, of: url, to: UInt64.max - 5)
        let before = try Data(contentsOf: URL(fileURLWithPath: url.path + SQLiteStore.sideFileSuffixes[3]))
        do {
            try DataStack(sqliteTestSchema).addStorageAndWait(SQLiteStore(fileURL: url))
            Issue.record("damaged counters were accepted")
        } catch {
            #expect("\(error)".contains("counters are damaged"), "\(error)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.path + SQLiteStore.sideFileSuffixes[3])) == before)
    }

    @Test("A database reached through a symbolic link shares the counters of its file")
    func symbolicLink() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let link = directory.file("link.sqlite")
        let direct = try makeSQLiteStack(url)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: url.path)
        let linked = try makeSQLiteStack(link)
        let keys = try (0..<6).map { try insertAccount($0 % 2 == 0 ? direct : linked, "a\($0)@example.com").recordID.key }
        #expect(Set(keys).count == 6, "keys handed out twice: \(keys)")
        #expect(!FileManager.default.fileExists(atPath: link.path + SQLiteStore.sideFileSuffixes[3]))
    }

    @Test("The classic journal after WAL mode takes the counters the counters file holds")
    func rollbackJournalAfterWAL() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try makeSQLiteStack(url)
        let keys = try (0..<3).map { try insertAccount(stack, "a\($0)@example.com").recordID.key }
        let image = try powerCutImage(of: url, in: directory, named: "image.sqlite")
        // The process was killed: its counters file stays (the kernel keeps what was mapped).
        try FileManager.default.copyItem(atPath: url.path + SQLiteStore.sideFileSuffixes[3], toPath: image.path + SQLiteStore.sideFileSuffixes[3])
        let sequence = try word(3, of: image)
        let store = SQLiteStore(fileURL: image, journalMode: .rollback)
        let reopened = DataStack(sqliteTestSchema)
        try reopened.addStorageAndWait(store)
        #expect(try insertAccount(reopened, "b@example.com").recordID.key == keys[2] + 1)
        #expect(try store.storedCommitSequence() > sequence)
    }

    /// Three accounts, the largest deleted when `deletingTheLargest`, then the store reopened
    /// from a power-cut image without its counters file: the key a new account gets must follow
    /// the largest ever stored.
    @Test("A lost counters file: keys go on after the largest ever stored, deleted or not", arguments: [false, true])
    func lostCounterFile(deletingTheLargest: Bool) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try makeSQLiteStack(url)
        let keys = try (0..<3).map { try insertAccount(stack, "a\($0)@example.com").recordID.key }
        if deletingTheLargest { try deleteAccount(stack, "a2@example.com") }
        let image = try powerCutImage(of: url, in: directory, named: "image.sqlite")
        let reopened = try makeSQLiteStack(image)
        #expect(try reopened.fetchCount(From<Account>()) == (deletingTheLargest ? 2 : 3))
        #expect(try insertAccount(reopened, "b@example.com").recordID.key == keys[2] + 1)
    }

    @Test("A counters file behind the database is raised when a store opens")
    func staleCounterFile() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let (store, stack) = try makeStoreAndStack(url)
        let keys = try (0..<3).map { try insertAccount(stack, "a\($0)@example.com").recordID.key }
        let sequence = try store.storedCommitSequence()
        store.close()
        for index in 1...3 { try setWord(index, of: url, to: 0) }
        let (reopenedStore, reopened) = try makeStoreAndStack(url)
        #expect(try reopenedStore.storedCommitSequence() >= sequence)
        #expect(try insertAccount(reopened, "b@example.com").recordID.key == keys[2] + 1)
        #expect(try reopenedStore.storedCommitSequence() > sequence)
    }

    @Test("A file in the counters file's place that is not one is refused with a clear error")
    func foreignCounterFile() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: url.path + SQLiteStore.sideFileSuffixes[3]))
        let stack = DataStack(sqliteTestSchema)
        do {
            try stack.addStorageAndWait(SQLiteStore(fileURL: url))
            Issue.record("a foreign counters file was accepted")
        } catch {
            #expect("\(error)".contains("not a CoreStore counters file"), "\(error)")
        }
        let counters = try Data(contentsOf: URL(fileURLWithPath: url.path + SQLiteStore.sideFileSuffixes[3]))
        #expect(counters == Data(repeating: 0x41, count: 4096), "the refused file was changed")
    }

    @Test("A store opened for reading before any writer follows the writer's commits")
    func readerBeforeTheCounterFile() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let first = SQLiteStore(fileURL: url)
        _ = try first.open(schema: sqliteTestSchema.runtime().storeSchema(configuration: nil))
        first.close()
        try FileManager.default.removeItem(atPath: url.path + SQLiteStore.sideFileSuffixes[3])
        let reading = SQLiteStore(fileURL: url)
        _ = try reading.openForReading(schema: sqliteTestSchema.runtime().storeSchema(configuration: nil))
        defer { reading.close() }
        let before = try reading.storedCommitSequence()
        let (writing, stack) = try makeStoreAndStack(url)
        _ = try insertAccount(stack, "a@example.com")
        let after = try writing.storedCommitSequence()
        #expect(after > before)
        #expect(try reading.storedCommitSequence() == after)
    }

    @Test("An empty commit writes no page but moves the change signature")
    func emptyCommitMovesTheSignature() throws {
        let directory = try TemporaryDirectory()
        let store = SQLiteStore(fileURL: directory.file())
        let schema = try sqliteTestSchema.runtime().storeSchema(configuration: nil)
        _ = try store.open(schema: schema)
        defer { store.close() }
        let signature = store.changeSignature
        let info = try store.write(ChangeSet())
        #expect(info.sequence == (try store.storedCommitSequence()))
        #expect(store.changeSignature != signature)
    }
}

extension SQLiteStore {
    /// The counters stored in the database of a closed store, read without opening it for writing.
    func inspectCounters() throws -> CommitCounters {
        _ = try openForReading(schema: sqliteTestSchema.runtime().storeSchema(configuration: nil))
        defer { close() }
        return try withReadConnection { try SQLiteMetadata.counters($0) }
    }
}
