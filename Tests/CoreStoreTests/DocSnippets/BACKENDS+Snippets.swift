// Generated from docs/BACKENDS.md by scripts/extract-doc-snippets.sh: edit the document, then run
// the script. Each method is one code block of the document (or a run of blocks of one name), verbatim.
import Foundation
import CoreStore
import CoreStoreSQLite
import CoreStoreLMDB
import CoreStoreLevelDB

extension GuideSnippets {
    /// docs/BACKENDS.md, the `addingStores` block.
    func addingStores() async throws {
        let directory = URL(fileURLWithPath: "/var/lib/myapp", isDirectory: true)

        // The default: $XDG_DATA_HOME/<process>/<process>.sqlite, or ~/.local/share/<process>/…
        try dataStack.addStorageAndWait(SQLiteStore())

        // A named file, faster commits that may lose the last ones on a power cut (never on a crash)
        try dataStack.addStorageAndWait(SQLiteStore(
            fileURL: directory.appendingPathComponent("app.sqlite"), durability: .normal
        ))

        // A large file read by many scans: more memory for each connection's page cache (8 MiB unless given)
        try dataStack.addStorageAndWait(SQLiteStore(
            fileURL: directory.appendingPathComponent("catalog.sqlite"), pageCacheSize: 64 << 20
        ))

        // A network file system without WAL's shared memory: the classic rollback journal
        try dataStack.addStorageAndWait(SQLiteStore(
            fileURL: directory.appendingPathComponent("shared.sqlite"), journalMode: .rollback
        ))

        // LMDB and LevelDB take a directory; LevelDB's block cache is 16 MiB unless given
        try dataStack.addStorageAndWait(LMDBStore(fileURL: directory.appendingPathComponent("cache.lmdb"), verifiesOnOpen: true))
        try dataStack.addStorageAndWait(LevelDBStore(fileURL: directory.appendingPathComponent("events.leveldb"), blockCacheSize: 32 << 20))

        // A cache that may be thrown away when the model changes
        try dataStack.addStorageAndWait(SQLiteStore(fileName: "cache.sqlite", localStorageOptions: .recreateStoreOnModelMismatch))
    }

    /// docs/BACKENDS.md, the `configurations` block.
    func configurations() async throws {
        final class Note: CoreStoreObject {
            @Field.Stored("text") var text: String = ""
        }
        final class SearchHit: CoreStoreObject {
            @Field.Stored("score") var score: Double = 0
        }

        let stack = DataStack(CoreStoreSchema(
            modelVersion: "V1",
            entitiesByConfiguration: ["Durable": [Entity<Note>("Note")], "Scratch": [Entity<SearchHit>("SearchHit")]]
        ))
        try stack.addStorageAndWait(SQLiteStore(fileName: "notes.sqlite", configuration: "Durable"))
        try stack.addStorageAndWait(InMemoryStore(configuration: "Scratch"))
        let hits = try stack.fetchAll(From<SearchHit>("Scratch").orderBy(.descending(\.$score)))
        print(hits.count)
    }

}
