import Foundation
import CoreStoreStorage

/// A failing write changes nothing and consumes no key (requirement 3).
enum AtomicityCases {
    static func failing(_ name: String, _ makeChanges: @escaping @Sendable (World) -> ChangeSet) -> ConformanceCase {
        ConformanceCase("a change set that \(name) changes nothing", group: "atomicity") { ctx in
            var (store, world) = try ctx.seeded(Fixtures.world())
            let before = try ctx.records(store, world.all.map(\.id))
            let highest = world.all.map(\.id.key).max() ?? 0
            try ctx.expectError("a change set that \(name)") { _ = try store.write(makeChanges(world)) }
            let after = try ctx.records(store, world.all.map(\.id))
            for (a, b) in zip(after, before) { try ctx.expectSameRecord(a, b) }
            for entity in ["Person", "Pet", "Code", "Sample"] { try ctx.expectSameFetch(store, world, FetchRequest(entity: entity)) }
            let info = try ctx.commit(store, ChangeSet(inserts: [Fixtures.sample(-1, [:])]), into: &world)
            let key = info.permanentIDs.values.first?.key ?? 0
            try ctx.expectEqual(key, highest + 1, "key of the first insert after the failed write (keys consumed?)")
        }
    }

    static let all: [ConformanceCase] = [
        failing("violates a unique constraint") { world in
            ChangeSet(inserts: [Fixtures.sample(-1, [:]), Fixtures.person(-2, "Dup", email: "ann@x")])
        },
        failing("deletes a missing record") { world in
            ChangeSet(inserts: [Fixtures.sample(-1, [:]), Fixtures.code(-2, "x", 1)], deletes: [world.all[0].id, Fixtures.id("Person", 77_777)])
        },
        failing("updates a missing record") { world in
            var record = world.all[1]
            record.attributes[0] = .string("Changed")
            return ChangeSet(inserts: [Fixtures.sample(-1, [:])], updates: [RecordUpdate(record: record, changedKeys: ["name"]),
                                                                            RecordUpdate(record: Fixtures.person(88_888, "X"), changedKeys: ["name"])])
        },
        failing("inserts two records with the same unique value") { _ in
            ChangeSet(inserts: [Fixtures.code(-1, "same", 1), Fixtures.code(-2, "same", 1)])
        },
        failing("updates into a unique collision") { world in
            var bob = world.all[1]
            bob.attributes[2] = .string("ann@x")
            return ChangeSet(inserts: [Fixtures.sample(-1, [:])], updates: [RecordUpdate(record: bob, changedKeys: ["email"])])
        },
        failing("collides across parent and sub-entity") { _ in
            ChangeSet(inserts: [Fixtures.dog(-1, "Clone", tag: 1)])
        },
    ]
}

/// A read keeps seeing the snapshot it started on while a write commits (requirement 2).
enum IsolationCases {
    final class Signal: @unchecked Sendable {
        let started = DispatchSemaphore(value: 0)
        let written = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var _error: (any Error)?
        private var _timedOut = false
        var timedOut: Bool {
            get { lock.withLock { _timedOut } }
            set { lock.withLock { _timedOut = newValue } }
        }
        var error: (any Error)? {
            get { lock.withLock { _error } }
            set { lock.withLock { _error = newValue } }
        }
    }

    static func isolation(_ name: String, _ changes: @escaping @Sendable (World) -> ChangeSet) -> ConformanceCase {
        ConformanceCase("a read started before \(name) keeps the old state", group: "isolation", requires: .concurrentReaders) { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            let signal = Signal()
            let writeChanges = changes(world)
            let thread = Thread {
                signal.started.wait()
                do { _ = try store.write(writeChanges) } catch { signal.error = error }
                signal.written.signal()
            }
            thread.start()
            let outcome: String? = try store.read { reader in
                let request = FetchRequest(entity: "Pet")
                let first = try reader.fetch(request).completed(for: request, schema: Fixtures.schema).map(\.id.key)
                signal.started.signal()
                if signal.written.wait(timeout: .now() + 10) == .timedOut {
                    signal.timedOut = true
                    return "the write did not finish within 10 s while a read was open"
                }
                let second = try reader.fetch(request).completed(for: request, schema: Fixtures.schema)
                if second.map(\.id.key) != first { return "inside one read, pets were \(first) then \(second.map(\.id.key))" }
                let again = try reader.records(world.all.map(\.id))
                for (a, b) in zip(again, world.all) where a != b { return "inside one read, \(b.id) changed to \(String(describing: a))" }
                return nil
            }
            if let outcome {
                if signal.timedOut { signal.written.wait() }
                try ctx.fail(outcome)
            }
            if let error = signal.error { try ctx.fail("the concurrent write failed: \(error)") }
            let pets = try ctx.fetch(store, FetchRequest(entity: "Pet")).map(\.id.key)
            try ctx.expect(pets != world.all.filter { $0.id.entity != "Person" }.map(\.id.key), "a read after the write does not see it")
        }
    }

    static let all: [ConformanceCase] = [
        isolation("an insert") { _ in ChangeSet(inserts: [Fixtures.pet(-1, "Late", tag: 500)]) },
        isolation("a delete") { world in ChangeSet(deletes: [world.all.first { $0.id.entity == "Pet" && $0.relationships[0].isEmpty }?.id ?? world.all[0].id]) },
        isolation("an update and an insert") { world in
            var pet = world.all.first { $0.id.entity == "Pet" } ?? world.all[0]
            pet.attributes[0] = .string("Changed")
            return ChangeSet(inserts: [Fixtures.pet(-1, "Late", tag: 501)], updates: [RecordUpdate(record: pet, changedKeys: ["name"])])
        },
    ]
}
