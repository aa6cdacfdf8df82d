import Foundation
import CoreStoreStorage

/// Builds ``Record``s from table rows: attributes and to-one keys from the row, to-many
/// destinations with one batched query per relationship.
struct SQLiteRecordLoader {
    let connection: SQLiteConnection
    let mapping: SQLiteSchemaMapping

    /// The select list for whole rows of `table`: `_key`, `_entity`, then every column.
    static func columns(of table: SQLiteSchemaMapping.Table, alias: String) -> String {
        (["\(alias).\"_key\"", "\(alias).\"_entity\""] + table.columns.map { "\(alias).\($0.name.sqlIdentifier)" }).joined(separator: ", ")
    }

    /// One row read with ``columns(of:alias:)``.
    struct Row {
        let key: Int64
        let entity: String
        let values: [SQLiteValue]
    }

    static func row(_ statement: SQLiteStatement, columnCount: Int) -> Row {
        Row(key: statement.int64(0), entity: statement.text(1) ?? "",
            values: (0..<columnCount).map { statement.column(Int32($0 + 2)) })
    }

    /// Records for rows of one table, in row order.
    func records(_ rows: [Row], table: String) throws -> [Record] {
        guard let tableDescription = mapping.tables[table] else { throw StorageError.unknownEntity(table) }
        var columnIndex: [String: Int] = [:]
        for (i, column) in tableDescription.columns.enumerated() { columnIndex[column.name] = i }

        var records: [Record] = []
        records.reserveCapacity(rows.count)
        // Keys of to-one destinations whose entity must be looked up, by destination table.
        var polymorphic: [String: Set<Int64>] = [:]
        for row in rows {
            let entity = try mapping.entity(row.entity)
            var attributes: [Value] = []
            attributes.reserveCapacity(entity.attributeColumns.count)
            for (ordinal, column) in entity.attributeColumns.enumerated() {
                guard let index = columnIndex[column] else { throw StorageError.unknownKey(key: column, entity: entity.name) }
                attributes.append(try SQLiteValueCodec.decode(row.values[index], as: entity.attributeTypes[ordinal]))
            }
            var relationships: [[RecordID]] = []
            relationships.reserveCapacity(entity.relationships.count)
            for relationship in entity.relationships {
                guard case .foreignKey(let column) = relationship.storage, let index = columnIndex[column],
                      case .integer(let key) = row.values[index] else {
                    relationships.append([])
                    continue
                }
                relationships.append([RecordID(entity: relationship.destination, key: key)])
                if relationship.destinationIsPolymorphic { polymorphic[relationship.destinationTable, default: []].insert(key) }
            }
            records.append(Record(id: RecordID(entity: entity.name, key: row.key), attributes: attributes, relationships: relationships))
        }

        var entities: [Int64: String] = [:]
        for (destinationTable, keys) in polymorphic {
            try lookUpEntities(Array(keys), table: destinationTable, into: &entities)
        }
        if !entities.isEmpty {
            for r in records.indices {
                let entity = try mapping.entity(records[r].id.entity)
                for (ordinal, relationship) in entity.relationships.enumerated() where !relationship.isToMany && relationship.destinationIsPolymorphic {
                    records[r].relationships[ordinal] = records[r].relationships[ordinal].map { RecordID(entity: entities[$0.key] ?? $0.entity, key: $0.key) }
                }
            }
        }
        try loadToMany(&records)
        return records
    }

    /// Fills every to-many relationship of `records`.
    private func loadToMany(_ records: inout [Record]) throws {
        // Group record positions by the relationship storage they need.
        struct Group { var relationship: SQLiteSchemaMapping.RelationshipMapping; var slots: [Int64: [(Int, Int)]] = [:] }
        var groups: [String: Group] = [:]
        for (r, record) in records.enumerated() {
            let entity = try mapping.entity(record.id.entity)
            for (ordinal, relationship) in entity.relationships.enumerated() where relationship.isToMany {
                let id: String
                switch relationship.storage {
                case .foreignKey: continue
                case .inverseForeignKey(let column, let position): id = "\(relationship.destinationTable)|\(column)|\(position ?? "")"
                case .joinTable(let table): id = table
                }
                groups[id, default: Group(relationship: relationship)].slots[record.id.key, default: []].append((r, ordinal))
            }
        }
        for group in groups.values {
            let relationship = group.relationship
            let keys = Array(group.slots.keys)
            for chunk in keys.chunked(500) {
                let placeholders = (1...chunk.count).map { "?\($0)" }.joined(separator: ", ")
                let sql: String
                switch relationship.storage {
                case .foreignKey:
                    continue
                case .inverseForeignKey(let column, let position):
                    let order = position.map { "\($0.sqlIdentifier), " } ?? ""
                    sql = "SELECT \(column.sqlIdentifier), \"_key\", \"_entity\" FROM \(relationship.destinationTable.sqlIdentifier) WHERE \(column.sqlIdentifier) IN (\(placeholders)) ORDER BY \(column.sqlIdentifier), \(order)\"_key\""
                case .joinTable(let table):
                    sql = "SELECT j.\"source\", j.\"destination\", d.\"_entity\" FROM \(table.sqlIdentifier) j LEFT JOIN \(relationship.destinationTable.sqlIdentifier) d ON d.\"_key\" = j.\"destination\" WHERE j.\"source\" IN (\(placeholders)) ORDER BY j.\"source\", j.\"position\""
                }
                try connection.statement(sql).query(chunk.map { .integer($0) }) { row in
                    let source = row.int64(0)
                    let destination = RecordID(entity: row.text(2) ?? relationship.destination, key: row.int64(1))
                    for (r, ordinal) in group.slots[source] ?? [] {
                        records[r].relationships[ordinal].append(destination)
                    }
                }
            }
        }
    }

    /// The concrete entity of each key of `table`.
    func lookUpEntities(_ keys: [Int64], table: String, into entities: inout [Int64: String]) throws {
        for chunk in keys.chunked(500) {
            let placeholders = (1...chunk.count).map { "?\($0)" }.joined(separator: ", ")
            try connection.statement("SELECT \"_key\", \"_entity\" FROM \(table.sqlIdentifier) WHERE \"_key\" IN (\(placeholders))")
                .query(chunk.map { .integer($0) }) { row in
                    entities[row.int64(0)] = row.text(1)
                }
        }
    }
}
