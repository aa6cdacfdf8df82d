import CoreStoreConformance
import Foundation
import Testing
@testable import corestore

/// The model behind `corestore torture power` keeps exactly what a file system keeps through a
/// power cut: synced bytes, name changes made durable by a later sync, and for everything else
/// none, a prefix, or any subset of 4 KiB pieces.
@Suite("Power-cut file system")
struct PowerCutFileSystemTests {
    /// Builds a journal in the recorder's format.
    struct JournalWriter {
        var bytes: [UInt8] = []

        mutating func record(_ kind: UInt8, file: UInt64 = 0, a: UInt64 = 0, b: UInt64 = 0, payload: [UInt8] = []) {
            bytes += [kind, 0, 0, 0] + Self.littleEndian(UInt32(payload.count))
            bytes += Self.littleEndian(file) + Self.littleEndian(a) + Self.littleEndian(b) + payload
        }

        mutating func open(_ path: String, inode: UInt64, creating: Bool = false) {
            record(1, file: inode, a: UInt64(creating ? O_CREAT | O_WRONLY : O_WRONLY), payload: Array(path.utf8))
        }
        mutating func write(_ inode: UInt64, at offset: Int, _ data: [UInt8]) { record(2, file: inode, a: UInt64(offset), payload: data) }
        mutating func sync(_ inode: UInt64) { record(3, file: inode) }
        mutating func rename(_ from: String, _ to: String) { record(5, payload: Array(from.utf8) + [0] + Array(to.utf8)) }
        mutating func mark(_ text: String) { record(9, payload: Array(text.utf8)) }

        func journal(in directory: URL) throws -> PowerCutJournal {
            let url = directory.appendingPathComponent("journal")
            try Data(bytes).write(to: url)
            return try PowerCutJournal(contentsOf: url)
        }

        private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
            (0..<MemoryLayout<T>.size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
    }

    /// A temporary directory with a `root` directory holding `files`, removed afterwards.
    private func withRoot(_ files: [String: [UInt8]], _ body: (URL, URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("powercut-\(UUID().uuidString)")
        let root = directory.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, content) in files { try Data(content).write(to: root.appendingPathComponent(name)) }
        try body(directory, root)
    }

    /// The files of the image of `fileSystem` now, by name.
    private func image(of fileSystem: PowerCutFileSystem, in directory: URL, _ unsynced: PowerCutFileSystem.Unsynced, seed: UInt64 = 1) throws -> [String: [UInt8]] {
        let target = directory.appendingPathComponent("image-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: target) }
        var random = SplitMix64(seed: seed)
        try fileSystem.writeImage(to: target, unsynced: unsynced, random: &random, isTransient: TorturePowerCommand.isTransient)
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: target.path) {
            files[name] = [UInt8](try Data(contentsOf: target.appendingPathComponent(name)))
        }
        return files
    }

    @Test
    func syncedBytesSurviveAndUnsyncedOnesMayNot() throws {
        try withRoot(["data": Array("base".utf8)]) { directory, root in
            var writer = JournalWriter()
            writer.open(root.path + "/data", inode: 7)
            writer.write(7, at: 0, Array("AAAA".utf8))
            writer.sync(7)
            writer.write(7, at: 4, Array("BBBB".utf8))
            var fileSystem = PowerCutFileSystem(base: try PowerCutFileSystem.Base(directory: root), journal: try writer.journal(in: directory))
            #expect(try image(of: fileSystem, in: directory, .dropped) == ["data": Array("base".utf8)])
            let journal = try writer.journal(in: directory)
            for operation in journal.operations.prefix(3) { fileSystem.apply(operation) }
            #expect(try image(of: fileSystem, in: directory, .dropped) == ["data": Array("AAAA".utf8)])
            fileSystem.apply(journal.operations[3])
            #expect(try image(of: fileSystem, in: directory, .dropped) == ["data": Array("AAAA".utf8)])
            var prefixes: Set<[UInt8]> = []
            var subsets: Set<[UInt8]> = []
            for seed in 1...16 as ClosedRange<UInt64> {
                prefixes.insert(try #require(try image(of: fileSystem, in: directory, .prefix, seed: seed)["data"]))
                subsets.insert(try #require(try image(of: fileSystem, in: directory, .subset, seed: seed)["data"]))
            }
            #expect(prefixes == [Array("AAAA".utf8), Array("AAAABBBB".utf8)])
            #expect(subsets == [Array("AAAA".utf8), Array("AAAABBBB".utf8)])
        }
    }

    @Test
    func aRenameIsDurableOnlyOnceSomethingIsSynced() throws {
        try withRoot(["other": [1]]) { directory, root in
            var writer = JournalWriter()
            writer.open(root.path + "/other", inode: 1)
            writer.open(root.path + "/CURRENT.tmp", inode: 2, creating: true)
            writer.write(2, at: 0, Array("MANIFEST-2\n".utf8))
            writer.sync(2)
            writer.rename(root.path + "/CURRENT.tmp", root.path + "/CURRENT")
            writer.mark("ack 1\n")
            writer.sync(1)
            let journal = try writer.journal(in: directory)
            var fileSystem = PowerCutFileSystem(base: try PowerCutFileSystem.Base(directory: root), journal: journal)
            for operation in journal.operations.prefix(6) { fileSystem.apply(operation) }
            #expect(try image(of: fileSystem, in: directory, .dropped) == ["other": [1], "CURRENT.tmp": Array("MANIFEST-2\n".utf8)])
            fileSystem.apply(journal.operations[6])
            #expect(try image(of: fileSystem, in: directory, .dropped) == ["other": [1], "CURRENT": Array("MANIFEST-2\n".utf8)])
            guard case .mark(let text) = journal.operations[5] else {
                Issue.record("the mark was read as \(journal.operations[5])")
                return
            }
            #expect(text == "ack 1\n")
        }
    }

    @Test
    func unsyncedWritesTearOnlyAtPageBoundaries() throws {
        let pages = 4
        let size = pages * PowerCutFileSystem.pieceSize
        try withRoot(["data": [UInt8](repeating: 0, count: size), "lock.mdb": [9]]) { directory, root in
            var writer = JournalWriter()
            writer.open(root.path + "/data", inode: 3)
            writer.write(3, at: 0, [UInt8](repeating: 0xFF, count: size))
            let journal = try writer.journal(in: directory)
            var fileSystem = PowerCutFileSystem(base: try PowerCutFileSystem.Base(directory: root), journal: journal)
            for operation in journal.operations { fileSystem.apply(operation) }
            var shapes: Set<[UInt8]> = []
            for seed in 1...32 as ClosedRange<UInt64> {
                let files = try image(of: fileSystem, in: directory, .subset, seed: seed)
                #expect(files["lock.mdb"] == nil, "a transient file is in the image")
                let data = try #require(files["data"])
                #expect(data.count == size)
                let shape = (0..<pages).map { page in data[page * PowerCutFileSystem.pieceSize] }
                for page in 0..<pages {
                    let piece = data[(page * PowerCutFileSystem.pieceSize)..<((page + 1) * PowerCutFileSystem.pieceSize)]
                    #expect(piece.allSatisfy { $0 == shape[page] }, "page \(page) is torn inside")
                }
                shapes.insert(shape)
            }
            // Pieces land independently: some images mix old and new pages.
            #expect(shapes.count > 2)
        }
    }

    @Test
    func aJournalCutInsideARecordIsRefused() throws {
        try withRoot([:]) { directory, root in
            var writer = JournalWriter()
            writer.write(1, at: 0, [1, 2, 3])
            writer.bytes.removeLast()
            #expect(throws: TortureSetupError.self) { _ = try writer.journal(in: directory) }
        }
    }
}
