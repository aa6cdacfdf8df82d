import Foundation
import Testing
import CoreStoreSQL
import CoreStoreStorage
@testable import CoreStoreSQLite

/// Every connection of a store gets the page cache the store was given (`SQLiteStore.pageCacheSize`):
/// the writer, the pooled readers, and the readers of a store opened only for reading.
@Suite("SQLiteStore page cache")
struct SQLitePageCacheTests {
    static let schema = StoreSchema(modelVersion: "P1", schemaHash: "P1", entities: [
        EntityDescription(name: "Note", attributes: [AttributeDescription(name: "text", type: .string, isOptional: true)])
    ])

    /// SQLite's `cache_size` as a connection reports it: a negative number of KiB.
    private func cacheSize(_ connection: SQLiteConnection) throws -> SQLValue {
        try connection.scalar("PRAGMA cache_size")
    }

    @Test("The writer and the readers get the store's page cache, rounded up to whole KiB", arguments: [
        (SQLiteStore.defaultPageCacheSize, Int64(-8192)),
        (3 << 20, Int64(-3072)),
        ((3 << 20) + 1, Int64(-3073)),
        (1, Int64(-1)),
        (0, Int64(0)),
        (-4096, Int64(0)),
    ])
    func connectionsGetTheCache(size: Int, expected: Int64) throws {
        let directory = try TemporaryDirectory()
        let store = SQLiteStore(fileURL: directory.file(), pageCacheSize: size)
        #expect(store.pageCacheSize == size)
        _ = try store.open(schema: Self.schema)
        defer { store.close() }
        #expect(try store.withReadConnection(cacheSize) == .integer(expected))
        let writer = try store.openWriter(schema: Self.schema)
        #expect(try cacheSize(writer) == .integer(expected))
    }

    @Test("A store given no size uses 8 MiB a connection, also from a file name")
    func defaultSize() throws {
        #expect(SQLiteStore.defaultPageCacheSize == 8 * 1024 * 1024)
        #expect(SQLiteStore(fileURL: URL(fileURLWithPath: "/tmp/unused.sqlite")).pageCacheSize == SQLiteStore.defaultPageCacheSize)
        #expect(SQLiteStore(fileName: "unused.sqlite", pageCacheSize: 1 << 20).pageCacheSize == 1 << 20)
    }

    @Test("A store opened for reading gives its readers the cache too")
    func readOnlyReaders() throws {
        let directory = try TemporaryDirectory()
        let writing = SQLiteStore(fileURL: directory.file())
        _ = try writing.open(schema: Self.schema)
        writing.close()
        let reading = SQLiteStore(fileURL: directory.file(), pageCacheSize: 5 << 20)
        _ = try reading.openForReading(schema: Self.schema)
        defer { reading.close() }
        #expect(try reading.withReadConnection(cacheSize) == .integer(-5120))
    }
}
