import Foundation
import Testing
import CSQLite
import CoreStore
import CoreStoreSQLite

/// Runs of consecutive keys are deleted by one key range, the rest by key lists: the same rows
/// and join-table rows must go either way.
@Suite("SQLiteStore range deletes")
struct SQLiteRangeDeleteTests {
    /// The number of rows of every join table (tables with a `source` column).
    private func joinRows(_ url: URL) throws -> Int {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { throw CocoaError(.fileReadUnknown) }
        defer { sqlite3_close(db) }
        func column(_ sql: String) -> [String] {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { return [] }
            defer { sqlite3_finalize(statement) }
            var values: [String] = []
            while sqlite3_step(statement) == SQLITE_ROW { values.append(String(cString: sqlite3_column_text(statement, 0))) }
            return values
        }
        let tables = column("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%\"source\"%'")
        #expect(!tables.isEmpty, "the model has a join table")
        return tables.reduce(0) { total, table in total + (Int(column("SELECT count(*) FROM \"\(table)\"").first ?? "") ?? 0) }
    }

    @Test("A run of 30 keys and scattered keys: the rows, their join-table rows and the inverses go")
    func runsAndScatteredKeys() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try makeSQLiteStack(url)
        try stack.perform(synchronous: { transaction in
            // The zoos first, so that their keys are consecutive; one favorite and one resident each.
            let zoos = (0..<60).map { i -> Zoo in
                let zoo = transaction.create(Into<Zoo>())
                zoo.name = String(format: "z%02d", i)
                return zoo
            }
            for zoo in zoos {
                let lion = transaction.create(Into<Lion>())
                lion.name = "l" + zoo.name.dropFirst()
                lion.zoo = zoo
                zoo.favorites = [lion]
            }
        })
        #expect(try joinRows(url) == 60)
        let doomed = (10..<40).map { String(format: "z%02d", $0) } + ["z45", "z50", "z59"]
        let deleted = try stack.perform(synchronous: { transaction in
            try transaction.deleteAll(From<Zoo>().where(\.$name ~= doomed))
        })
        #expect(deleted == 33)
        let kept = try stack.fetchAll(From<Zoo>().orderBy(.ascending(\.$name)))
        #expect(kept.map(\.name) == (0..<60).map { String(format: "z%02d", $0) }.filter { !doomed.contains($0) })
        #expect(kept.allSatisfy { $0.favorites.count == 1 && $0.residents.count == 1 })
        #expect(try joinRows(url) == 27)
        let homeless = try stack.fetchAll(From<Lion>()).filter { $0.zoo == nil }.map(\.name).sorted()
        #expect(homeless == doomed.map { "l" + $0.dropFirst() }.sorted())
    }
}
