import Foundation
import CoreStore
import CoreStoreStorage

/// Foreign, garbage and truncated files (``LocalStorage`` requirement 2): refused with
/// ``StorageError/incompatibleStore(path:reason:)`` and left byte-for-byte as they were.
///
/// The cases need ``StorageCapabilities/persistent`` and ``StorageCapabilities/localFiles``, and
/// reach the files through ``StorageFactory/location(of:)`` and ``StorageFactory/files(of:)``.
/// A store that declares `localFiles` while its factory names no file fails them with a message
/// saying so: passing without damaging anything would prove nothing.
enum FileCases {
    static func c(_ name: String, level: ConformanceLevel = .contract, _ body: @escaping @Sendable (ConformanceContext) throws -> Void) -> ConformanceCase {
        ConformanceCase(name, group: "files", level: level, requires: [.persistent, .localFiles], body: body)
    }

    /// The files of `store` (closed first); fails when the factory lists none.
    static func files(_ ctx: ConformanceContext, _ store: any StorageInterface) throws -> [URL] {
        store.close()
        let files = ctx.factory.files(of: store)
        if files.isEmpty {
            try ctx.fail("the store declares localFiles but \(ctx.factory.name)'s files(of:) lists no file for it; implement StorageFactory.files(of:) (or location(of:)) so that the suite can damage them")
        }
        return files
    }

    /// Where `store` keeps its data; fails when the factory does not say.
    static func location(_ ctx: ConformanceContext, _ store: any StorageInterface) throws -> URL {
        guard let location = ctx.factory.location(of: store) else {
            try ctx.fail("the store declares localFiles but \(ctx.factory.name)'s location(of:) is nil; implement StorageFactory.location(of:) so that the suite can place a foreign file there")
        }
        return location
    }

    /// The bytes of everything the store may touch: its location (a file, or a directory and
    /// everything in it), side files next to it named after it (`store.sqlite-wal`), and `files`.
    static func snapshot(_ ctx: ConformanceContext, _ store: any StorageInterface, _ files: [URL]) throws -> [String: Data?] {
        var result: [String: Data?] = [:]
        if let location = ctx.factory.location(of: store) {
            for (path, data) in try StoreFiles.snapshot(at: location) { result[location.path + "/" + path] = data }
            let parent = location.deletingLastPathComponent()
            let name = location.lastPathComponent
            for sibling in (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? [] where sibling != name && sibling.hasPrefix(name) {
                for (path, data) in try StoreFiles.snapshot(at: parent.appendingPathComponent(sibling)) { result[sibling + "/" + path] = data }
            }
        }
        for file in files where FileManager.default.fileExists(atPath: file.path) { result[file.path] = try Data(contentsOf: file) }
        return result
    }

    /// Fails unless two snapshots are equal, naming the paths that differ.
    static func expectUntouched(_ ctx: ConformanceContext, _ before: [String: Data?], _ after: [String: Data?], _ what: String) throws {
        guard before != after else { return }
        let paths = Set(before.keys).union(after.keys).sorted().filter { before[$0] != after[$0] }
        let changes = paths.prefix(5).map { path -> String in
            switch (before[path], after[path]) {
            case (nil, _): return "\(path) appeared"
            case (_, nil): return "\(path) disappeared"
            default: return "\(path) changed"
            }
        }
        try ctx.fail("\(what) was not left untouched: \(changes.joined(separator: ", "))")
    }

    static func isIncompatibleStore(_ error: StorageError) -> Bool {
        if case .incompatibleStore = error { return true }
        return false
    }

    /// Opens a new instance over `store`'s damaged data; fails unless the open throws
    /// `incompatibleStore` and leaves every byte as it was.
    static func expectRefusedAndUntouched(_ ctx: ConformanceContext, _ store: any StorageInterface, _ files: [URL], _ what: String) throws {
        let before = try snapshot(ctx, store, files)
        let instance = try ctx.instance(over: store)
        try ctx.expectError("opening \(what)", matching: isIncompatibleStore) { _ = try instance.open(schema: Fixtures.schema) }
        instance.close()
        try expectUntouched(ctx, before, try snapshot(ctx, store, files), what)
    }

    /// Overwrites every file with garbage of the same length (at least 512 bytes).
    static func overwriteWithGarbage(_ files: [URL]) throws {
        for file in files {
            let count = (try? Data(contentsOf: file).count) ?? 0
            try StoreFiles.garbage(count: max(count, 512)).write(to: file)
        }
    }

    static let all: [ConformanceCase] = [
        c("a store whose files are overwritten with garbage is refused and left untouched") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            let files = try files(ctx, store)
            try overwriteWithGarbage(files)
            try expectRefusedAndUntouched(ctx, store, files, "a store whose files hold garbage")
        },
        c("a store whose files are cut to half their length is refused untouched, or opens as an earlier commit") { ctx in
            let store = try ctx.openStore()
            var world = World()
            let names = (1...12).map { "pet \($0) " + String(repeating: "x", count: 200) }
            for (i, name) in names.enumerated() {
                try ctx.commit(store, ChangeSet(inserts: [Fixtures.pet(-1, name, tag: Int64(i + 1))]), into: &world)
            }
            let files = try files(ctx, store)
            for file in files {
                let data = try Data(contentsOf: file)
                if !data.isEmpty { try Data(data.prefix(data.count / 2)).write(to: file) }
            }
            let before = try snapshot(ctx, store, files)
            let instance = try ctx.instance(over: store)
            let metadata: StoredMetadata?
            do {
                metadata = try instance.open(schema: Fixtures.schema)
            } catch let error as StorageError {
                try ctx.expect(isIncompatibleStore(error), "opening a store whose files were cut in half threw \(error), expected incompatibleStore")
                instance.close()
                try expectUntouched(ctx, before, try snapshot(ctx, store, files), "a store whose files were cut in half")
                return
            }
            // Opened: it must show exactly the state after one of the commits (a torn write
            // recovered), never a mix or damaged values.
            let pets = try ctx.fetch(instance, FetchRequest(entity: "Pet"))
            try ctx.expect(metadata != nil || pets.isEmpty, "the store opened as new but holds \(pets.count) pets")
            try ctx.expect(pets.count <= names.count, "the store holds \(pets.count) pets, more than were written")
            for (i, pet) in pets.enumerated() {
                try ctx.expectEqual(pet.attributes, [.string(names[i]), .int(Int64(i + 1)), .null], "pet \(i + 1) after opening a truncated store (not the state of an earlier commit)")
            }
        },
        c("a foreign file at a new store's location is refused and left untouched") { ctx in
            let store = try ctx.newStore()
            let location = try location(ctx, store)
            try FileManager.default.createDirectory(at: location.deletingLastPathComponent(), withIntermediateDirectories: true)
            try (Data("This file belongs to another program.\n".utf8) + StoreFiles.garbage(count: 4096)).write(to: location)
            let before = try snapshot(ctx, store, [location])
            try ctx.expectError("opening a store over a foreign file", matching: isIncompatibleStore) { _ = try store.open(schema: Fixtures.schema) }
            store.close()
            try expectUntouched(ctx, before, try snapshot(ctx, store, [location]), "a foreign file")
        },
        c("a directory of unrelated files at a new store's location is refused and left untouched") { ctx in
            let store = try ctx.newStore()
            let location = try location(ctx, store)
            try FileManager.default.createDirectory(at: location, withIntermediateDirectories: true)
            try Data("my notes\n".utf8).write(to: location.appendingPathComponent("notes.txt"))
            let before = try snapshot(ctx, store, [])
            try ctx.expectError("opening a store over a directory of unrelated files", matching: isIncompatibleStore) { _ = try store.open(schema: Fixtures.schema) }
            store.close()
            try expectUntouched(ctx, before, try snapshot(ctx, store, []), "a directory of unrelated files")
        },
        c("restoring the files after a refusal gives the data back") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            let files = try files(ctx, store)
            let originals = try files.map { try Data(contentsOf: $0) }
            try overwriteWithGarbage(files)
            let refused = try ctx.instance(over: store)
            try ctx.expectError("opening a store whose files hold garbage", matching: isIncompatibleStore) { _ = try refused.open(schema: Fixtures.schema) }
            for (file, data) in zip(files, originals) { try data.write(to: file) }
            let (restored, metadata) = try ctx.reopen(refused)
            try ctx.expectEqual(metadata?.schemaHash, Fixtures.schema.schemaHash, "schemaHash after restoring the files")
            for entity in ["Person", "Pet"] { try ctx.expectSameFetch(restored, world, FetchRequest(entity: entity)) }
        },
        c("a DataStack refuses garbage files with storageFailure(incompatibleStore)", level: .api) { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            let files = try files(ctx, store)
            try overwriteWithGarbage(files)
            let before = try snapshot(ctx, store, files)
            let instance = try ctx.instance(over: store)
            let stack = DataStack(APICases.schema())
            do {
                try stack.addStorageAndWait(instance)
                try ctx.fail("addStorageAndWait accepted a store whose files hold garbage")
            } catch let error as CoreStoreError {
                guard case .storageFailure(.incompatibleStore) = error else {
                    try ctx.fail("addStorageAndWait threw \(error.debugDescription), expected storageFailure(incompatibleStore)")
                }
            }
            try ctx.expectEqual(stack.storages.count, 0, "stores added to the DataStack")
            try expectUntouched(ctx, before, try snapshot(ctx, store, files), "a store whose files hold garbage")
        },
    ]
}
