import Foundation
import Testing
import CoreStore
import CoreStorePostgres

final class SharedNote: CoreStoreObject {
    @Field.Stored("title") var title: String = ""
    @Field.Stored("count") var count: Int = 0
}

/// Records what a list monitor tells its observer, as text.
final class NoteListRecorder: ListObjectObserver, @unchecked Sendable {
    typealias ListEntityType = SharedNote
    private let lock = NSLock()
    private var recorded: [String] = []
    var events: [String] { lock.withLock { recorded } }
    private func record(_ event: String) { lock.withLock { recorded.append(event) } }

    func listMonitorWillChange(_ monitor: ListMonitor<SharedNote>) { record("willChange") }
    func listMonitorDidChange(_ monitor: ListMonitor<SharedNote>) { record("didChange") }
    func listMonitor(_ monitor: ListMonitor<SharedNote>, didInsertObject object: SharedNote, toIndexPath indexPath: IndexPath) {
        record("insert \(object.title) \(object.count)")
    }
    func listMonitor(_ monitor: ListMonitor<SharedNote>, didDeleteObject object: SharedNote, fromIndexPath indexPath: IndexPath) {
        record("delete")
    }
    func listMonitor(_ monitor: ListMonitor<SharedNote>, didUpdateObject object: SharedNote, atIndexPath indexPath: IndexPath) {
        record("update \(object.title) \(object.count)")
    }
    func listMonitor(_ monitor: ListMonitor<SharedNote>, didMoveObject object: SharedNote, fromIndexPath: IndexPath, toIndexPath: IndexPath) {
        record("move \(object.title)")
    }
}

/// Records what an object monitor tells its observer, as text.
final class NoteObjectRecorder: ObjectObserver, @unchecked Sendable {
    typealias ObjectEntityType = SharedNote
    private let lock = NSLock()
    private var recorded: [String] = []
    var events: [String] { lock.withLock { recorded } }
    private func record(_ event: String) { lock.withLock { recorded.append(event) } }

    func objectMonitor(_ monitor: ObjectMonitor<SharedNote>, didUpdateObject object: SharedNote, changedPersistentKeys: Set<String>) {
        record("update \(changedPersistentKeys.sorted().joined(separator: ",")) \(object.title) \(object.count)")
    }
    func objectMonitor(_ monitor: ObjectMonitor<SharedNote>, didDeleteObject object: SharedNote) {
        record("delete")
    }
}

/// Two `DataStack`s on one PostgreSQL store, connected through different connection strings:
/// nothing inside the process links them (their stores' identities differ), so what one
/// commits reaches the other only through the database, by its notification and its stored
/// commit sequence, as between processes.
@Suite("Stacks sharing a PostgreSQL store", .serialized)
struct PostgresSharedStackTests {
    static let schema = CoreStoreSchema(modelVersion: "V1", entities: [Entity<SharedNote>("SharedNote")])

    /// The key-value form of a `postgres://user@host:port/database` URL.
    static func keyValueForm(_ url: String) throws -> String {
        let components = try #require(URLComponents(string: url))
        var parts = ["host=\(components.host ?? "localhost")", "dbname=\(components.path.dropFirst())"]
        if let port = components.port { parts.append("port=\(port)") }
        if let user = components.user { parts.append("user=\(user)") }
        if let password = components.password { parts.append("password=\(password)") }
        return parts.joined(separator: " ")
    }

    /// Waits (up to two minutes: a loaded machine, ThreadSanitizer) until `condition` holds.
    static func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return try condition()
    }

    /// A writer and a reader stack on a new schema of the test server, through the two forms of
    /// its connection string; returns the reader's store too, and the schema's name.
    static func stacksOnNewSchema(_ prefix: String) throws -> (writer: DataStack, reader: DataStack, readerStore: PostgresStore, schemaName: String) {
        let url = try PostgresTestServer.requireURL()
        let schemaName = "\(prefix)_\(UInt32.random(in: 0...UInt32.max))"
        let readerStore = PostgresStore(url: try keyValueForm(url), schemaName: schemaName)
        let writer = DataStack(schema)
        try writer.addStorageAndWait(PostgresStore(url: url, schemaName: schemaName))
        let reader = DataStack(schema)
        try reader.addStorageAndWait(readerStore)
        return (writer, reader, readerStore, schemaName)
    }

    /// Drops a schema `stacksOnNewSchema(_:)` made.
    static func eraseSchema(_ schemaName: String) {
        guard let url = try? PostgresTestServer.requireURL() else { return }
        try? PostgresStore(url: url, schemaName: schemaName).erase()
    }

    @Test func commitsThroughAnotherConnectionReachMonitorsAndObjects() throws {
        let url = try PostgresTestServer.requireURL()
        let schemaName = "shared_stacks_\(UInt32.random(in: 0...UInt32.max))"
        let writerStore = PostgresStore(url: url, schemaName: schemaName)
        let readerStore = PostgresStore(url: try Self.keyValueForm(url), schemaName: schemaName)
        #expect(writerStore.sharedIdentity != readerStore.sharedIdentity)
        defer { try? PostgresStore(url: url, schemaName: schemaName).erase() }

        let writer = DataStack(Self.schema)
        try writer.addStorageAndWait(writerStore)
        let reader = DataStack(Self.schema)
        try reader.addStorageAndWait(readerStore)
        let list = try reader.monitorList(From<SharedNote>().orderBy(.ascending(\.$title)), deliveryQueue: DispatchQueue(label: "test.deliveries"))
        let recorder = NoteListRecorder()
        list.addObserver(recorder)

        try writer.perform(synchronous: { t in
            for (i, title) in ["a", "b", "c"].enumerated() {
                let note = t.create(Into<SharedNote>())
                note.title = title
                note.count = i
            }
        })
        // The observer hears of it after the list changed: wait for its last callback.
        #expect(Self.eventually { recorder.events.count >= 5 }, "\(recorder.events)")
        #expect(recorder.events == ["willChange", "insert a 0", "insert b 1", "insert c 2", "didChange"])
        #expect(list.numberOfObjects() == 3)
        let a = try #require(try reader.fetchOne(From<SharedNote>().where(\.$title == "a")))

        try writer.perform(synchronous: { t in
            try t.fetchOne(From<SharedNote>().where(\.$title == "a"))?.count = 10
            try t.delete(t.fetchOne(From<SharedNote>().where(\.$title == "c")))
        })
        #expect(Self.eventually { recorder.events.count >= 9 && a.count == 10 }, "\(recorder.events)")
        #expect(recorder.events.suffix(4) == ["willChange", "delete", "update a 10", "didChange"])
        #expect(list.objectsInAllSections().map(\.title) == ["a", "b"])

        // And back: the reader's own commit reaches the writer's objects.
        try reader.perform(synchronous: { t in
            let note = t.create(Into<SharedNote>())
            note.title = "d"
        })
        #expect(Self.eventually { (try? writer.fetchCount(From<SharedNote>())) == 3 })
        #expect(Set(try writer.fetchAll(From<SharedNote>()).map(\.title)) == ["a", "b", "d"])
    }

    /// Another connection's commits reach object monitors with the keys that changed, read from
    /// the store's commit summaries, one commit at a time.
    @Test func objectMonitorsHearWhichKeysAnotherConnectionChanged() throws {
        let (writer, reader, readerStore, schemaName) = try Self.stacksOnNewSchema("shared_objects")
        defer { Self.eraseSchema(schemaName) }
        try writer.perform(synchronous: { t in
            let note = t.create(Into<SharedNote>())
            note.title = "a"
        })
        #expect(Self.eventually { (try? reader.fetchCount(From<SharedNote>())) == 1 })
        let note = try #require(try reader.fetchOne(From<SharedNote>()))
        let monitor = try reader.monitorObject(note, deliveryQueue: DispatchQueue(label: "test.object-deliveries"))
        let recorder = NoteObjectRecorder()
        monitor.addObserver(recorder)

        // The commit log names what the commits changed.
        let before = try readerStore.storedCommitSequence()
        try writer.perform(synchronous: { t in try t.fetchOne(From<SharedNote>())?.count = 5 })
        #expect(Self.eventually { recorder.events.count >= 1 }, "\(recorder.events)")
        try writer.perform(synchronous: { t in try t.fetchOne(From<SharedNote>())?.title = "b" })
        #expect(Self.eventually { recorder.events.count >= 2 }, "\(recorder.events)")
        let summaries = try #require(try readerStore.committedChanges(after: before))
        #expect(summaries.map(\.sequence) == [before + 1, before + 2])
        #expect(summaries.compactMap { $0.changes?.changedKeys.values.first } == [["count"], ["title"]])

        try writer.perform(synchronous: { t in try t.delete(t.fetchOne(From<SharedNote>())) })
        #expect(Self.eventually { recorder.events.count >= 3 }, "\(recorder.events)")
        #expect(recorder.events == ["update count a 5", "update title b 5", "delete"])
        #expect(monitor.isObjectDeleted)
        #expect(try reader.fetchCount(From<SharedNote>()) == 0)
    }

    /// A stack that no monitor observes deletes rows without reading them; the commit's
    /// summary still names every deleted record, so another connection's monitors hear of each.
    @Test func rowsDeletedUnreadReachAnotherConnectionsMonitors() throws {
        let (writer, reader, readerStore, schemaName) = try Self.stacksOnNewSchema("shared_unread")
        defer { Self.eraseSchema(schemaName) }
        try writer.perform(synchronous: { t in
            for (i, title) in ["a", "b", "c", "d"].enumerated() {
                let note = t.create(Into<SharedNote>())
                note.title = title
                note.count = i
            }
        })
        #expect(Self.eventually { (try? reader.fetchCount(From<SharedNote>())) == 4 })
        let list = try reader.monitorList(From<SharedNote>().orderBy(.ascending(\.$title)), deliveryQueue: DispatchQueue(label: "test.unread-deliveries"))
        let recorder = NoteListRecorder()
        list.addObserver(recorder)

        let before = try readerStore.storedCommitSequence()
        let deleted = try writer.perform(synchronous: { t in
            let deleted = try t.deleteAll(From<SharedNote>().where(\.$count >= 1 && \.$count <= 2))
            let note = t.create(Into<SharedNote>())
            note.title = "e"
            note.count = 9
            return deleted
        })
        #expect(deleted == 2)
        let summaries = try #require(try readerStore.committedChanges(after: before))
        #expect(summaries.map { $0.changes?.deleted.count } == [2])
        #expect(Self.eventually { recorder.events.count >= 5 }, "\(recorder.events)")
        #expect(recorder.events == ["willChange", "delete", "delete", "insert e 9", "didChange"])
        #expect(list.objectsInAllSections().map(\.title) == ["a", "d", "e"])
    }

    /// Every commit stores its counters, its summary and its notification in one statement:
    /// the log keeps the latest summaries and forgets the one that falls out, the counters go on
    /// (no key is handed out twice), and the other connection hears of every commit.
    @Test func theCommitLogKeepsTheLatestCommitsAndTheCountersGoOn() throws {
        let (writer, reader, readerStore, schemaName) = try Self.stacksOnNewSchema("shared_log")
        defer { Self.eraseSchema(schemaName) }
        let start = try readerStore.storedCommitSequence()
        let commits = 1_000 + 5
        for i in 0..<commits {
            try writer.perform(synchronous: { t in
                let note = t.create(Into<SharedNote>())
                note.title = "n\(i)"
                note.count = i
            })
        }
        let latest = try readerStore.storedCommitSequence()
        #expect(latest == start + UInt64(commits))
        // The log no longer holds the first commits; it holds exactly the latest thousand.
        #expect(try readerStore.committedChanges(after: start) == nil)
        let kept = try #require(try readerStore.committedChanges(after: latest - 1_000))
        #expect(kept.map(\.sequence) == Array((latest - 999)...latest))
        #expect(kept.allSatisfy { $0.changes?.inserted.count == 1 })
        // Every commit got keys of its own, and the other connection saw every row.
        #expect(Self.eventually { (try? reader.fetchCount(From<SharedNote>())) == commits })
        let ids = try reader.fetchObjectIDs(From<SharedNote>())
        #expect(Set(ids).count == commits)
        #expect(try reader.fetchCount(From<SharedNote>().where(\.$count == commits - 1)) == 1)
    }
}
