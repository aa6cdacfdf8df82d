import Foundation
import CoreStoreSQL
import Testing
import CSQLite
import CoreStoreStorage
@testable import CoreStoreSQLite

/// Texts and blobs bound to a statement read back exactly, run after run, whether SQLite reads
/// them from the statement's own copies (short values, `SQLITE_STATIC`) or copies them itself
/// (long ones), and however many values a run binds.
@Suite("SQLite bound texts and blobs")
struct SQLiteBoundBytesTests {
    private func connection() throws -> SQLiteConnection {
        try SQLiteConnection(path: ":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, schema: StoreSchema(modelVersion: "B1", schemaHash: "b-1", entities: []))
    }

    /// A text of `count` bytes that differs for every `seed` (NUL characters included).
    static func text(_ count: Int, seed: Int) -> String {
        String(decoding: (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 31 &+ seed) % 128) }, as: UTF8.self)
    }

    @Test("Each run reads back its own values, short, long, empty and with NUL", arguments: [1, 3, 40, 120])
    func valuesRoundTripAcrossRuns(valuesPerRun: Int) throws {
        let connection = try connection()
        let columns = (1...valuesPerRun).map { "?\($0)" }.joined(separator: ", ")
        let statement = try connection.statement("SELECT \(columns)")
        // Sizes around the largest copy; 120 values copy more than two chunks' worth per run, so
        // runs fill chunks, go on in the next, and reuse them.
        let sizes = [0, 1, 15, 16, 300, SQLiteBoundBytes.largestCopied, SQLiteBoundBytes.largestCopied + 1, 5_000]
        for run in 0..<12 {
            let values: [SQLValue] = (0..<valuesPerRun).map { i in
                let size = sizes[(run + i) % sizes.count]
                return (run + i).isMultiple(of: 3) ? .blob(Data(Self.text(size, seed: run * 100 + i).utf8)) : .text(Self.text(size, seed: run * 100 + i))
            }
            var read: [SQLValue] = []
            try statement.query(values) { row in read = (0..<Int32(valuesPerRun)).map { row.column($0) } }
            let wrong = (0..<min(read.count, values.count)).filter { read[$0] != values[$0] }
            #expect(read.count == values.count && wrong.isEmpty, "run \(run): values \(wrong) read back wrong")
        }
    }

    @Test("Values bound one by one after reset() replace the previous run's")
    func valuesBoundOneByOne() throws {
        let connection = try connection()
        let statement = try connection.statement("SELECT ?1, ?2")
        for run in 0..<5 {
            statement.reset()
            let first = SQLValue.text(Self.text(10 + run, seed: run)), second = SQLValue.blob(Data(Self.text(2_000 + run, seed: run).utf8))
            try statement.bind(first, at: 1)
            try statement.bind(second, at: 2)
            var read: [SQLValue] = []
            #expect(try statement.step())
            read = [statement.column(0), statement.column(1)]
            #expect(read == [first, second], "run \(run)")
            statement.reset()
        }
    }

    @Test("A copy is refused past the largest copied size, and for nothing")
    func copiesOnlyShortValues() {
        let bytes = SQLiteBoundBytes()
        let long = [UInt8](repeating: 7, count: SQLiteBoundBytes.largestCopied + 1)
        #expect(long.withUnsafeBytes { bytes.copy($0) } == nil)
        #expect([UInt8]().withUnsafeBytes { bytes.copy($0) } == nil)
        let short: [UInt8] = [1, 2, 3]
        let copy = short.withUnsafeBytes { bytes.copy($0) }
        #expect(copy.map { Array(UnsafeRawBufferPointer(start: $0, count: 3)) } == short)
    }
}
