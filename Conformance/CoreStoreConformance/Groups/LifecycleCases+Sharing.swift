import Foundation
import CoreStoreStorage

/// Two instances over the same data, both open (``SharedAccessStorage``): what several
/// `DataStack`s on one file, or several processes, rely on.
extension LifecycleCases {
    static func sharing(_ name: String, _ body: @escaping @Sendable (ConformanceContext) throws -> Void) -> ConformanceCase {
        ConformanceCase(name, group: "lifecycle", requires: .persistent, adopts: [.sharedAccess], body: body)
    }

    /// `store` and a second instance over its data, both open with the fixtures' schema.
    static func sharedPair(_ ctx: ConformanceContext, _ store: any StorageInterface) throws -> (any SharedAccessStorage, any SharedAccessStorage) {
        let first = try ctx.unwrap(store as? any SharedAccessStorage, "a \(ctx.factory.name) adopting SharedAccessStorage")
        let second = try ctx.unwrap(try ctx.sharingInstance(over: store) as? any SharedAccessStorage, "a second \(ctx.factory.name) adopting SharedAccessStorage")
        let metadata = try second.open(schema: Fixtures.schema)
        try ctx.expectEqual(metadata?.schemaHash, Fixtures.schema.schemaHash, "schemaHash seen by the second instance")
        try ctx.expectEqual(second.sharedIdentity, first.sharedIdentity, "sharedIdentity of two instances over the same data")
        return (first, second)
    }

    static let sharingCases: [ConformanceCase] = [
        sharing("two open instances see each other's writes") { ctx in
            let (store, seeded) = try ctx.seeded(Fixtures.world())
            var world = seeded
            let (first, second) = try sharedPair(ctx, store)
            try ctx.expectSameFetch(second, world, FetchRequest(entity: "Person"))
            _ = try ctx.commit(second, ChangeSet(inserts: [Fixtures.person(-1, "Zed", age: 9)]), into: &world)
            try ctx.expectSameFetch(first, world, FetchRequest(entity: "Person"))
            _ = try ctx.commit(first, ChangeSet(inserts: [Fixtures.person(-1, "Yan", age: 8)]), into: &world)
            try ctx.expectSameFetch(second, world, FetchRequest(entity: "Person"))
        },
        sharing("a read sees one moment while the other instance commits") { ctx in
            // A stack catching up without commit summaries reads its objects and then its
            // monitors' lists inside one read: both must see the same commits. The other
            // instance commits from another thread while the read is open; an engine whose
            // readers hold writers off (SQLite with a rollback journal) lets it finish only
            // once the read has ended, which this case accepts.
            let (store, _) = try ctx.seeded(Fixtures.world())
            let (first, second) = try sharedPair(ctx, store)
            let request = FetchRequest(entity: "Person")
            let results = SharedResults()
            let committed = DispatchSemaphore(value: 0)
            var inside: [Int] = []
            try first.read { reader in
                inside.append(try reader.fetch(request).records.count)
                Thread.detachNewThread {
                    do {
                        results.add(Array(try second.write(ChangeSet(inserts: [Fixtures.person(-1, "Zed", age: 9)])).permanentIDs.values.map(\.key)))
                    } catch {
                        results.fail("\(error)")
                    }
                    committed.signal()
                }
                // Give the commit time to land inside the read where the engine lets it.
                _ = committed.wait(timeout: .now() + 0.5)
                inside.append(try reader.fetch(request).records.count)
                inside.append(try reader.count(request))
            }
            if results.keys.isEmpty && results.failures.isEmpty { committed.wait() }
            try ctx.expect(results.failures.isEmpty, "the other instance's commit failed: \(results.failures)")
            let count = try ctx.unwrap(inside.first, "people seen at the read's start")
            try ctx.expectEqual(inside, [count, count, count], "people seen inside one read while the other instance committed")
            let after = try first.read { try $0.fetch(request) }.records
            try ctx.expectEqual(after.count, count + 1, "people seen by the next read")
            try ctx.expect(after.contains { $0.attributes.contains(.string("Zed")) }, "the other instance's record seen by the next read")
        },
        sharing("the stored commit sequence counts the commits of both instances") { ctx in
            let (store, seeded) = try ctx.seeded(Fixtures.world())
            var world = seeded
            let (first, second) = try sharedPair(ctx, store)
            let start = try first.storedCommitSequence()
            try ctx.expectEqual(try second.storedCommitSequence(), start, "storedCommitSequence of the second instance")
            let a = try ctx.commit(first, ChangeSet(inserts: [Fixtures.person(-1, "Zed")]), into: &world)
            try ctx.expectEqual(a.sequence, start + 1, "sequence of the first instance's commit")
            try ctx.expectEqual(try second.storedCommitSequence(), start + 1, "storedCommitSequence seen by the other instance")
            let b = try ctx.commit(second, ChangeSet(inserts: [Fixtures.person(-1, "Yan")]), into: &world)
            try ctx.expectEqual(b.sequence, start + 2, "sequence of the second instance's commit, after the first's")
            try ctx.expectEqual(try first.storedCommitSequence(), start + 2, "storedCommitSequence seen by the first instance")
        },
        sharing("writers on two instances at once get distinct identifiers and lose nothing") { ctx in
            let store = try ctx.openStore()
            let (first, second) = try sharedPair(ctx, store)
            let perWriter = 25
            let results = SharedResults()
            DispatchQueue.concurrentPerform(iterations: 2) { writer in
                let target: any SharedAccessStorage = writer == 0 ? first : second
                for i in 0..<perWriter {
                    do {
                        let info = try target.write(ChangeSet(inserts: [Fixtures.person(-1, "w\(writer)-\(i)")]))
                        results.add(info.permanentIDs.values.map(\.key))
                    } catch {
                        results.fail("\(error)")
                    }
                }
            }
            try ctx.expect(results.failures.isEmpty, "concurrent writes failed: \(results.failures.prefix(3))")
            try ctx.expectEqual(Set(results.keys).count, 2 * perWriter, "distinct permanent identifiers")
            let people = try first.read { try $0.fetch(FetchRequest(entity: "Person")) }
            try ctx.expectEqual(people.records.count, 2 * perWriter, "records stored by both writers")
            try ctx.expectEqual(try second.storedCommitSequence(), try first.storedCommitSequence(), "storedCommitSequence of both instances")
        },
        sharing("commit summaries, when kept, name what each commit changed, in order") { ctx in
            let (store, seeded) = try ctx.seeded(Fixtures.world())
            var world = seeded
            let (first, second) = try sharedPair(ctx, store)
            let start = try first.storedCommitSequence()
            // Summaries are optional: a store that keeps none answers nil.
            guard try second.committedChanges(after: start) != nil else { return }
            let pets = world.all.filter { $0.id.entity == "Pet" && $0.relationships[0].isEmpty }
            let inserted = try ctx.commit(first, ChangeSet(inserts: [Fixtures.pet(-1, "New", tag: 100)]), into: &world)
            var renamed = pets[0]
            renamed.attributes[0] = .string("Renamed")
            let changed = try ctx.commit(second, ChangeSet(updates: [RecordUpdate(record: renamed, changedKeys: ["name"])], deletes: [pets[1].id]), into: &world)
            let summaries = try ctx.unwrap(try first.committedChanges(after: start), "committedChanges(after:) once it answered")
            try ctx.expectEqual(summaries.map(\.sequence), [inserted.sequence, changed.sequence], "sequences of the summaries after \(start)")
            let newID = try ctx.unwrap(inserted.permanentIDs.values.first, "the inserted pet's identifier")
            try ctx.expectEqual(summaries[0].changes, CommitSummary.Changes(inserted: [newID]), "summary of the insert")
            try ctx.expectEqual(summaries[1].changes?.updated.map(\.key), [renamed.id.key], "records updated by the second commit")
            try ctx.expectEqual(summaries[1].changes?.changedKeys[renamed.id], ["name"], "keys changed by the second commit")
            try ctx.expectEqual(summaries[1].changes?.deleted.map(\.key), [pets[1].id.key], "records deleted by the second commit")
            try ctx.expectEqual(try second.committedChanges(after: changed.sequence), [], "summaries after the last commit")
        },
    ]
}

/// What concurrent writers report.
private final class SharedResults: @unchecked Sendable {
    private let lock = NSLock()
    private var _keys: [Int64] = []
    private var _failures: [String] = []
    var keys: [Int64] { lock.withLock { _keys } }
    var failures: [String] { lock.withLock { _failures } }
    func add(_ keys: [Int64]) { lock.withLock { _keys += keys } }
    func fail(_ message: String) { lock.withLock { _failures.append(message) } }
}
