import Foundation
import Testing
import CoreStore
import AppendLogStore

final class Note: CoreStoreObject {
    @Field.Stored("title") var title: String = ""
    @Field.Stored("rank") var rank: Int = 0
}

@Suite("AppendLogStore through a DataStack")
struct AppendLogStoreTests {
    @Test func dataSurvivesReopeningAndATornTail() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("append-log-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: url) }
        let schema = CoreStoreSchema(modelVersion: "V1", entities: [Entity<Note>("Note", indexes: [[\Note.$rank]])])
        do {
            let stack = DataStack(schema)
            try stack.addStorageAndWait(AppendLogStore(fileURL: url))
            try stack.perform(synchronous: { transaction in
                for (title, rank) in [("b", 2), ("a", 1), ("c", 3)] {
                    let note = transaction.create(Into<Note>())
                    note.title = title
                    note.rank = rank
                }
            })
        }
        // A crash in the middle of an append leaves a partial commit at the end of the log.
        let handle = try FileHandle(forWritingTo: url.appendingPathComponent("log"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([1, 0, 0, 0, 9, 1, 2]))
        try handle.close()

        do {
            let stack = DataStack(schema)
            try stack.addStorageAndWait(AppendLogStore(fileURL: url))
            #expect(try stack.fetchAll(From<Note>().where(\.$rank >= 2).orderBy(.ascending(\.$rank))).map(\.title) == ["b", "c"])
            try stack.perform(synchronous: { $0.create(Into<Note>()).title = "d" })
            #expect(try stack.fetchCount(From<Note>()) == 4)
        }
        // The torn tail was cut off on opening, so the commit made since follows the last good one.
        let stack = DataStack(schema)
        try stack.addStorageAndWait(AppendLogStore(fileURL: url))
        #expect(try stack.fetchAll(From<Note>().orderBy(.ascending(\.$title))).map(\.title) == ["a", "b", "c", "d"])
    }

    @Test func aForeignFileIsRefused() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("append-log-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data("not a log".utf8).write(to: url)
        let stack = DataStack(CoreStoreSchema(modelVersion: "V1", entities: [Entity<Note>("Note")]))
        #expect(throws: CoreStoreError.self) { try stack.addStorageAndWait(AppendLogStore(fileURL: url)) }
        #expect(try Data(contentsOf: url) == Data("not a log".utf8))
    }
}
