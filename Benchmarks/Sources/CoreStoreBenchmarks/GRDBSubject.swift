import Foundation
import GRDB

/// The benchmark entity as a GRDB record, stored in the `item` table.
///
/// `id` is an ordinary indexed column; the table's key is SQLite's implicit rowid, which the
/// record selects (as GRDB recommends for tables without an explicit primary key) so that
/// `update(_:)` can find its row. `rowid` is nil in records built for insertion.
struct GRDBItem: Codable, FetchableRecord, PersistableRecord {
    var rowid: Int64?
    var id: Int64
    var name: String
    var age: Int
    var score: Double
    var created: Date

    static let databaseTableName = "item"

    /// Every column, plus the hidden rowid that identifies the row.
    static var databaseSelection: [any SQLSelectable] { [.allColumns, .rowID] }

    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSince1970
    }

    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSince1970
    }

    /// The columns, for the query interface.
    enum Columns {
        static let id = Column(CodingKeys.id)
        static let age = Column(CodingKeys.age)
        static let score = Column(CodingKeys.score)
    }

    /// A new record (not yet inserted) with the values of `row`.
    init(_ row: BenchRow) {
        id = row.id
        name = row.name
        age = row.age
        score = row.score
        created = row.created
    }

    /// Adds every field of this record to `checksum`.
    func add(to checksum: inout Checksum, position: Int64 = 1) {
        checksum.add(
            id: id, name: name, age: age, score: score,
            created: created.timeIntervalSince1970, position: position)
    }
}

/// SQLite through GRDB, used the way its documentation recommends: a `DatabaseQueue` in WAL
/// mode and a Codable record with the query interface. Its page cache is GRDB's default,
/// SQLite's own 2,000 KiB (CoreStore's `SQLiteStore` and the raw subject use 8 MiB).
final class GRDBSubject: BenchmarkSubject {
    private let dbQueue: DatabaseQueue

    /// Opens `directory/grdb.sqlite` and creates the `item` table with indexes on `id` and `age`.
    init(directory: URL) throws {
        var configuration = Configuration()
        // `.wal` also sets `synchronous=NORMAL`; it is repeated here so the setting is explicit.
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let path = directory.appendingPathComponent("grdb.sqlite").path
        dbQueue = try DatabaseQueue(path: path, configuration: configuration)
        try dbQueue.write { db in
            try db.create(table: GRDBItem.databaseTableName) { table in
                table.column("id", .integer).notNull()
                table.column("name", .text).notNull()
                table.column("age", .integer).notNull()
                table.column("score", .real).notNull()
                table.column("created", .real).notNull()
            }
            try db.create(index: "item_id", on: GRDBItem.databaseTableName, columns: ["id"])
            try db.create(index: "item_age", on: GRDBItem.databaseTableName, columns: ["age"])
        }
    }

    // MARK: Workloads

    func insert(_ rows: [BenchRow]) throws {
        try dbQueue.write { db in
            for row in rows {
                try GRDBItem(row).insert(db)
            }
        }
    }

    func fetchAll() throws -> Checksum {
        try dbQueue.read { db in
            Self.checksum(of: try GRDBItem.fetchAll(db))
        }
    }

    func fetch(age: Int) throws -> Checksum {
        try dbQueue.read { db in
            Self.checksum(of: try GRDBItem.filter(GRDBItem.Columns.age == age).fetchAll(db))
        }
    }

    func fetchTopScores(in range: ClosedRange<Double>, limit: Int) throws -> Checksum {
        let items = try dbQueue.read { db in
            try GRDBItem
                .filter(range.contains(GRDBItem.Columns.score))
                .order(GRDBItem.Columns.score.desc, GRDBItem.Columns.id.asc)
                .limit(limit)
                .fetchAll(db)
        }
        var checksum = Checksum()
        for (index, item) in items.enumerated() {
            item.add(to: &checksum, position: Int64(index + 1))
        }
        return checksum
    }

    func aggregate() throws -> Checksum {
        try dbQueue.read { db in
            var checksum = Checksum()
            if let totals = try Row.fetchOne(db, sql: "SELECT COUNT(*), SUM(score) FROM item") {
                checksum.add(totals[0] as Int64)
                checksum.add(Int64(totals[1] as Double? ?? 0))
            }
            let groups = try Row.fetchAll(
                db, sql: "SELECT age, COUNT(*), SUM(score) FROM item GROUP BY age ORDER BY age")
            for group in groups {
                checksum.add(aggregateGroupChecksum(age: group[0], count: group[1], scoreSum: group[2]))
            }
            return checksum
        }
    }

    func countPerAgeAndHighestID() throws -> Checksum {
        try dbQueue.read { db in
            let groups = try Row.fetchAll(db, sql: "SELECT age, COUNT(age) FROM item GROUP BY age ORDER BY age")
            let highest = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM item")
            return countPerAgeChecksum(groups.map { (age: $0[0], count: $0[1]) }, highestID: highest)
        }
    }

    func update(ids: Range<Int64>) throws {
        try dbQueue.write { db in
            let items = try GRDBItem.filter(ids.contains(GRDBItem.Columns.id)).fetchAll(db)
            for var item in items {
                item.score += 1
                item.age = (item.age + 1) % 100
                try item.update(db)
            }
        }
    }

    func importUnique(_ rows: [BenchRow]) throws {
        try dbQueue.write { db in
            for row in rows {
                if var item = try GRDBItem.filter(GRDBItem.Columns.id == row.id).fetchOne(db) {
                    item.name = row.name
                    item.age = row.age
                    item.score = row.score
                    item.created = row.created
                    try item.update(db)
                } else {
                    try GRDBItem(row).insert(db)
                }
            }
        }
    }

    func delete(ids: Range<Int64>) throws {
        _ = try dbQueue.write { db in
            try GRDBItem.filter(ids.contains(GRDBItem.Columns.id)).deleteAll(db)
        }
    }

    func monitoredUpdates(_ updates: [(id: Int64, score: Double)]) throws -> [Duration] {
        let clock = ContinuousClock()
        return try updates.map { update in
            try clock.measure {
                try dbQueue.write { db in
                    guard var item = try GRDBItem.filter(GRDBItem.Columns.id == update.id).fetchOne(db) else {
                        throw RecordError.recordNotFound(
                            databaseTableName: GRDBItem.databaseTableName, key: ["id": update.id.databaseValue])
                    }
                    item.score = update.score
                    try item.update(db)
                }
            }
        }
    }

    func insertEach(_ rows: [BenchRow]) throws {
        for row in rows {
            try dbQueue.write { db in
                try GRDBItem(row).insert(db)
            }
        }
    }

    /// The unordered checksum of `items`, every field read.
    private static func checksum(of items: [GRDBItem]) -> Checksum {
        var checksum = Checksum()
        for item in items {
            item.add(to: &checksum)
        }
        return checksum
    }
}
