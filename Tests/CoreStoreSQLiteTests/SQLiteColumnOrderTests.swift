import Foundation
import Testing
import CSQLite
import CoreStore
import CoreStoreSQLite

/// New record tables put the attribute columns first and `_key`, `_entity` last; a file made
/// with the earlier order (`_key`, `_entity` first) is read and written as before.
@Suite("SQLiteStore column order")
struct SQLiteColumnOrderTests {
    /// Runs `body` on the file's database, outside any store.
    private func withDatabase<T>(_ url: URL, _ body: (OpaquePointer?) throws -> T) throws -> T {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { throw CocoaError(.fileReadUnknown) }
        defer { sqlite3_close(db) }
        return try body(db)
    }

    /// The first column of every row `sql` returns, as text.
    private func column(_ db: OpaquePointer?, _ sql: String, column index: Int32 = 0) -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { return [] }
        defer { sqlite3_finalize(statement) }
        var values: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            values.append(sqlite3_column_text(statement, index).map { String(cString: $0) } ?? "")
        }
        return values
    }

    private func execute(_ db: OpaquePointer?, _ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSDebugDescriptionErrorKey: String(cString: sqlite3_errmsg(db))])
        }
    }

    /// Three lions and two snakes in one zoo.
    private func seed(_ stack: DataStack) throws {
        try stack.perform(synchronous: { transaction in
            let zoo = transaction.create(Into<Zoo>())
            zoo.name = "north"
            for name in ["Leo", "Ada", "Max"] {
                let lion = transaction.create(Into<Lion>())
                lion.name = name
                lion.zoo = zoo
            }
            for (name, length) in [("Kaa", 4.5), ("Nag", 2.0)] {
                let snake = transaction.create(Into<Snake>())
                snake.name = name
                snake.length = length
                snake.zoo = zoo
            }
        })
    }

    @Test("A new table lists its attributes first, then _key and _entity")
    func newTables() throws {
        let directory = try TemporaryDirectory()
        do { try seed(try makeSQLiteStack(directory.file())) }
        let columns = try withDatabase(directory.file()) { column($0, "PRAGMA table_info(\"Creature\")", column: 1) }
        #expect(columns.suffix(2) == ["_key", "_entity"])
        #expect(columns.first == "name")
    }

    @Test("A table made with _key and _entity first is read, sorted, changed and extended as before")
    func earlierOrder() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        do { try seed(try makeSQLiteStack(url)) }
        // Rebuild the hierarchy's table in the earlier order, with its rows and indexes.
        try withDatabase(url) { db in
            let columns = column(db, "PRAGMA table_info(\"Creature\")", column: 1)
            let types = column(db, "PRAGMA table_info(\"Creature\")", column: 2)
            let indexes = column(db, "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Creature' AND sql IS NOT NULL")
            let attributes = zip(columns, types).filter { $0.0 != "_key" && $0.0 != "_entity" }
            let definitions = ["\"_key\" INTEGER PRIMARY KEY", "\"_entity\" TEXT NOT NULL"] + attributes.map { "\"\($0.0)\" \($0.1)" }
            let names = (["_key", "_entity"] + attributes.map(\.0)).map { "\"\($0)\"" }.joined(separator: ", ")
            try execute(db, "BEGIN")
            try execute(db, "CREATE TABLE \"old\" (\(definitions.joined(separator: ", ")))")
            try execute(db, "INSERT INTO \"old\" (\(names)) SELECT \(names) FROM \"Creature\"")
            try execute(db, "DROP TABLE \"Creature\"")
            try execute(db, "ALTER TABLE \"old\" RENAME TO \"Creature\"")
            for index in indexes { try execute(db, index) }
            try execute(db, "COMMIT")
            #expect(column(db, "PRAGMA table_info(\"Creature\")", column: 1).prefix(2) == ["_key", "_entity"])
        }
        let stack = try makeSQLiteStack(url)
        #expect(try stack.fetchAll(From<Creature>().orderBy(.ascending(\.$name))).map(\.name) == ["Ada", "Kaa", "Leo", "Max", "Nag"])
        #expect(try stack.fetchAll(From<Lion>().orderBy(.descending(\.$name)).tweak { $0.fetchLimit = 2 }).map(\.name) == ["Max", "Leo"])
        #expect(try stack.fetchOne(From<Snake>().where(\.$length > 3))?.name == "Kaa")
        try stack.perform(synchronous: { transaction in
            let nag = try #require(try transaction.fetchOne(From<Snake>().where(\.$name == "Nag")))
            nag.length = 3.0
            try transaction.deleteAll(From<Lion>().where(\.$name == "Leo"))
            let cub = transaction.create(Into<Lion>())
            cub.name = "Cub"
            cub.mane = false
        })
        let again = try makeSQLiteStack(url)
        #expect(try again.fetchAll(From<Creature>().orderBy(.ascending(\.$name))).map(\.name) == ["Ada", "Cub", "Kaa", "Max", "Nag"])
        #expect(try again.fetchOne(From<Lion>().where(\.$name == "Cub"))?.mane == false)
        #expect(try again.fetchAll(From<Snake>().where(\.$length >= 3).orderBy(.ascending(\.$name))).map(\.name) == ["Kaa", "Nag"])
        let zoo = try #require(try again.fetchOne(From<Zoo>()))
        #expect(zoo.residents.count == 4)
    }
}
