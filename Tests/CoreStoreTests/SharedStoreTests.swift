import Foundation
import Testing
@testable import CoreStore
import CoreStoreSQLite

/// Several `DataStack`s on one SQLite file: each sees the others' commits in its fetches, its
/// objects and its monitors.
@Suite("Stacks sharing a SQLite file")
struct SharedStoreTests {
    static func stack(_ url: URL, schema: CoreStoreSchema = makeSchema()) throws -> DataStack {
        let stack = DataStack(schema)
        try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        return stack
    }

    /// Waits (up to a minute, for a loaded machine) until `condition` holds; false if it never does.
    static func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return try condition()
    }

    @Test func aSecondStackSeesTheFirstsCommitsInFetchesObjectsAndMonitors() throws {
        let url = try TestStoreFiles.newFile()
        let writer = try Self.stack(url)
        let reader = try Self.stack(url)
        try insertPeople(writer, [("Ann", 30)])
        let ann = try #require(try reader.fetchOne(From<Person>().where(\.$name == "Ann")))
        let list = try reader.monitorList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: makeDeliveryQueue())
        let listRecorder = ListRecorder<Person> { "\($0.name) \($0.age)" }
        list.addObserver(listRecorder)
        let objectMonitor = try reader.monitorObject(ann, deliveryQueue: makeDeliveryQueue())
        let objectRecorder = ObjectRecorder<Person> { "\($0.name) \($0.age)" }
        objectMonitor.addObserver(objectRecorder)

        try writer.perform(synchronous: { t in
            try t.fetchOne(From<Person>().where(\.$name == "Ann"))?.age = 31
            let bob = t.create(Into<Person>())
            bob.name = "Bob"
            bob.age = 40
        })
        // Fetches read the file: the commit is there at once.
        #expect(try reader.fetchCount(From<Person>()) == 2)
        // The reader's objects and monitors follow once it has checked the file.
        try reader.refreshFromSharedStores()
        reader.flushDeliveries(list, objectMonitor)
        #expect(ann.age == 31)
        #expect(objectRecorder.events == ["willUpdate Ann 31", "didUpdate Ann 31 [\"age\"]"])
        #expect(listRecorder.events == ["willChange", "insert Bob 40 [0,1]", "update Ann 31 [0,0]", "didChange"])
        #expect(sectionNames(list) == [["Ann", "Bob"]])

        // Nothing new: a check tells nobody anything.
        try reader.refreshFromSharedStores()
        reader.flushDeliveries(list, objectMonitor)
        #expect(listRecorder.events.count == 4 && objectRecorder.events.count == 2)
    }

    @Test func readsPinnedToOneSnapshotDoNotSeeLaterCommits() throws {
        let url = try TestStoreFiles.newFile()
        let writer = try Self.stack(url)
        let reader = try Self.stack(url)
        try insertPeople(writer, [("Ann", 30)])
        let store = try #require(reader.stores.first)
        let (before, writerSees, after, names) = try reader.gateway.readingOneSnapshot(of: [store]) { () throws(CoreStoreError) in
            do {
                let before = try reader.fetchCount(From<Person>())
                try insertPeople(writer, [("Bob", 40)])
                return (before, try writer.fetchCount(From<Person>()), try reader.fetchCount(From<Person>()), try reader.fetchAll(From<Person>()).map(\.name))
            } catch {
                throw CoreStoreError.wrap(error)
            }
        }
        // The writer's commit is in the file, but the pinned thread read the moment it pinned.
        #expect(before == 1 && after == 1 && names == ["Ann"])
        #expect(writerSees == 2)
        #expect(try reader.fetchCount(From<Person>()) == 2)
    }

    @Test func aCatchUpReadsObjectsAndListsAsOfOneCommit() throws {
        let url = try TestStoreFiles.newFile()
        let writer = try Self.stack(url)
        let reader = try Self.stack(url)
        try insertPeople(writer, [("Ann", 30)])
        let ann = try #require(try reader.fetchOne(From<Person>().where(\.$name == "Ann")))
        // Caught up with Ann's insert: the next refresh is for the commit below.
        try reader.refreshFromSharedStores()
        // Commits as soon as the reader has read its objects again, before its monitors read
        // their lists: what a commit landing in the middle of a catch-up looks like.
        let intruder = CommitDuringRefresh(reader: reader) {
            try writer.perform(synchronous: { t in
                try t.fetchOne(From<Person>().where(\.$name == "Ann"))?.age = 99
                t.create(Into<Person>()).name = "Cy"
            })
        }
        try reader.addCommitObserver(intruder) { () throws(CoreStoreError) in }
        try writer.perform(synchronous: { t in
            try t.fetchOne(From<Person>().where(\.$name == "Ann"))?.age = 31
            t.create(Into<Person>()).name = "Bob"
        })
        try reader.refreshFromSharedStores()
        // What the refresh read is the first commit, not the second (which the stack's watcher
        // may already have caught up with by now).
        #expect(intruder.seen == [["Ann", "Bob"]])
        // The next check brings the second commit, if the watcher has not.
        try reader.refreshFromSharedStores()
        #expect(ann.age == 99)
        #expect(try reader.fetchCount(From<Person>()) == 3)
        withExtendedLifetime(intruder) {}
    }

    @Test func theOtherStackNoticesWithoutBeingAsked() throws {
        let url = try TestStoreFiles.newFile()
        let writer = try Self.stack(url)
        let reader = try Self.stack(url)
        let list = try reader.monitorList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: makeDeliveryQueue())
        let recorder = ListRecorder<Person> { $0.name }
        list.addObserver(recorder)
        try insertPeople(writer, [("Ann", 30)])
        #expect(Self.eventually { recorder.events == ["willChange", "insert Ann [0,0]", "didChange"] }, "\(recorder.events)")
        try writer.perform(synchronous: { t in t.delete(try t.fetchAll(From<Person>())) })
        #expect(Self.eventually { recorder.events.count == 6 }, "\(recorder.events)")
        #expect(recorder.events.suffix(3) == ["willChange", "delete Ann [0,0]", "didChange"])
        #expect(list.numberOfObjects() == 0)
    }

    @Test func aCommitTellsTheOtherStacksOfItsFileOnly() throws {
        func watchers(of stack: DataStack, sharing identity: String) -> [ObjectIdentifier] {
            SharedStoreRegistry.otherWatchers(of: stack, sharing: identity).map(ObjectIdentifier.init)
        }
        let url = try TestStoreFiles.newFile()
        let first = try Self.stack(url)
        let identity = try #require(first.stores.first?.sharedIdentity)
        #expect(watchers(of: first, sharing: identity).isEmpty)
        var second: DataStack? = try Self.stack(url)
        let elsewhere = try Self.stack(try TestStoreFiles.newFile())
        let elsewhereIdentity = try #require(elsewhere.stores.first?.sharedIdentity)
        #expect(elsewhereIdentity != identity)
        #expect(watchers(of: first, sharing: identity) == [ObjectIdentifier(try #require(second).sharedStoreWatcher)])
        #expect(watchers(of: try #require(second), sharing: identity) == [ObjectIdentifier(first.sharedStoreWatcher)])
        #expect(watchers(of: elsewhere, sharing: elsewhereIdentity).isEmpty)
        second = nil
        #expect(Self.eventually { watchers(of: first, sharing: identity).isEmpty })
    }

    /// The registry of stacks sharing a file holds none of them, not even for a moment: a stack
    /// let go while other stacks of the process come and go on another thread closes its store
    /// there and then (SQLite merges its log into the database file and deletes the log), not
    /// later on that other thread — a file that an application copies or reopens right after
    /// releasing its stack is no longer being written to.
    @Test func aReleasedStackClosesItsStoreAtOnceWhileOtherStacksComeAndGo() throws {
        let stopChurning = LockedFlag()
        let churnEnded = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { churnEnded.signal() }
            // What every stack of a shared store does when it is added and when it goes, as
            // fast as it goes: a window for the registry to touch the stacks of the loop below.
            let churner = DataStack(makeSchema())
            while !stopChurning.isSet {
                SharedStoreRegistry.register(churner, for: "churn")
                SharedStoreRegistry.unregister(churner)
            }
        }
        defer {
            stopChurning.set()
            churnEnded.wait()
        }
        for round in 0..<300 {
            let url = try TestStoreFiles.newFile()
            do { try insertPeople(try Self.stack(url), [("Ann", 30)]) }
            #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"), "round \(round): the store was still open after its stack was released")
        }
    }

    @Test func aStackThatCommitsAfterAnotherCatchesUpWithIt() throws {
        let url = try TestStoreFiles.newFile()
        let first = try Self.stack(url)
        let second = try Self.stack(url)
        let list = try second.monitorList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: makeDeliveryQueue())
        try insertPeople(first, [("Ann", 30)])
        try insertPeople(second, [("Bob", 40)])
        // Bob's commit came after Ann's: the second stack's list holds both once it has caught up.
        #expect(Self.eventually { sectionNames(list) == [["Ann", "Bob"]] }, "\(sectionNames(list))")
    }

    @Test func concurrentWritersNeverCollide() async throws {
        let url = try TestStoreFiles.newFile()
        let stacks = try [Self.stack(url), Self.stack(url)]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, stack) in stacks.enumerated() {
                group.addTask {
                    for i in 0..<40 {
                        try await stack.async.perform { t in
                            let p = t.create(Into<Person>())
                            p.name = "s\(index)-\(i)"
                            p.age = i
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        for stack in stacks {
            let people = try stack.fetchAll(From<Person>())
            #expect(people.count == 80)
            #expect(Set(people.map(\.name)).count == 80)
            #expect(Set(people.compactMap { $0.cs_id() }).count == 80)
        }
    }

    @Test func aMigrationWaitsForTheFileToBeItsOwn() throws {
        let url = try TestStoreFiles.newFile()
        let current = try Self.stack(url)
        try insertPeople(current, [("Ann", 30)])
        // V2 adds an index: a lightweight step.
        let v2 = CoreStoreSchema(modelVersion: "V2", entities: [
            Entity<Animal>("Animal", isAbstract: true), Entity<Dog>("Dog"), Entity<Cat>("Cat"),
            Entity<Person>("Person", indexes: [[\Person.$name], [\Person.$age]]),
        ])
        let next = DataStack(makeSchema(), v2, migrationChain: ["V1", "V2"])
        let store = SQLiteStore(fileURL: url, localStorageOptions: .allowSynchronousLightweightMigration)
        #expect {
            try next.addStorageAndWait(store)
        } throws: { error in
            "\(error)".contains("needs the file to itself")
        }
        // The file is untouched and the first stack goes on.
        try insertPeople(current, [("Bob", 40)])
        #expect(try current.fetchCount(From<Person>()) == 2)
    }

    /// The stack that holds the file is let go on another thread while the migration starts:
    /// the migration waits that moment out instead of refusing.
    @Test func aMigrationWaitsAMomentForAStackLetGoElsewhere() throws {
        let url = try TestStoreFiles.newFile()
        final class Holder: @unchecked Sendable { var stack: DataStack? }
        let holder = Holder()
        holder.stack = try Self.stack(url)
        try insertPeople(holder.stack!, [("Ann", 30)])
        let v2 = CoreStoreSchema(modelVersion: "V2", entities: [
            Entity<Animal>("Animal", isAbstract: true), Entity<Dog>("Dog"), Entity<Cat>("Cat"),
            Entity<Person>("Person", indexes: [[\Person.$name], [\Person.$age]]),
        ])
        let next = DataStack(makeSchema(), v2, migrationChain: ["V1", "V2"])
        let released = DispatchSemaphore(value: 0)
        // A thread of its own: a global queue has as many workers as cores, which the suite's
        // other tests can all keep busy for longer than the grace period.
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.1)
            holder.stack = nil
            released.signal()
        }
        try next.addStorageAndWait(SQLiteStore(fileURL: url, localStorageOptions: .allowSynchronousLightweightMigration))
        #expect(released.wait(timeout: .now()) == .success, "the migration ran before the other stack was let go")
        #expect(try next.fetchAll(From<Person>()).map(\.name) == ["Ann"])
    }

    /// The watcher holds the shared stores it follows (a weak reference would slow every
    /// retain of them): removing the stores, or letting the stack go, still lets them go.
    @Test func followedStoresAreLetGoWithTheStackOrWhenRemoved() throws {
        weak var removedStore: AttachedStore?
        let stack = try Self.stack(try TestStoreFiles.newFile())
        removedStore = stack.gateway.stores.first
        #expect(removedStore != nil)
        stack.unsafeRemoveAllPersistentStoresAndWait()
        #expect(removedStore == nil)
        #expect(stack.gateway.stores.isEmpty)

        weak var keptStore: AttachedStore?
        weak var letGo: DataStack?
        do {
            let other = try Self.stack(try TestStoreFiles.newFile())
            try insertPeople(other, [("Ann", 30)])
            keptStore = other.gateway.stores.first
            letGo = other
            #expect(keptStore != nil)
        }
        #expect(letGo == nil)
        #expect(keptStore == nil)
    }
}

extension DataStack {
    /// Waits until the deliveries of the given monitors have run.
    func flushDeliveries(_ list: ListMonitor<Person>, _ object: ObjectMonitor<Person>) {
        list.delivery.flush()
        object.delivery.flush()
    }
}

/// A commit observer that, the first time its stack refreshes, commits through another stack
/// and then lists the people its own stack sees.
private final class CommitDuringRefresh: CommitObserver {
    private let reader: DataStack
    private var commit: (() throws -> Void)?
    private(set) var seen: [[String]] = []

    init(reader: DataStack, commit: @escaping () throws -> Void) {
        self.reader = reader
        self.commit = commit
    }

    func stackDidCommit(_ commits: [StoreCommit]) -> ObservationDelivery? { nil }

    func stackDidRefresh(_ commits: [StoreCommit]) -> ObservationDelivery? {
        guard let commit else { return nil }
        self.commit = nil
        do {
            try commit()
            seen.append(try reader.fetchAll(From<Person>().orderBy(.ascending(\.$name))).map(\.name))
        } catch {
            Issue.record(error)
        }
        return nil
    }
}

/// A flag one thread sets and another reads.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }

    func set() { lock.withLock { value = true } }
}
