import Foundation
import CoreStoreStorage

/// Builds `Record`s from table rows: attributes and to-one keys from the row, to-many
/// destinations with one batched query per relationship.
package struct SQLRecordLoader<Connection: SQLConnection> {
    package let connection: Connection
    package let mapping: SQLSchemaMapping

    package init(connection: Connection, mapping: SQLSchemaMapping) {
        self.connection = connection
        self.mapping = mapping
    }

    /// The select list for whole rows of `table`: `_key`, `_entity`, then every column.
    ///
    /// Without `readingEntity` (a read of an entity alone in its table, see
    /// ``SQLSchemaMapping/EntityMapping/isAloneInTable``), `NULL` stands in for `_entity`: the
    /// columns keep their positions, and the engine neither reads nor sends, nor sorts with the
    /// rows, a name every row shares. (The reader leaves it out only where the dialect does not
    /// ``SQLDialect/readsWholeRowsAsStored``.)
    package static func columns(of table: SQLSchemaMapping.Table, alias: String, readingEntity: Bool = true) -> String {
        let entity = readingEntity ? "\(alias).\"_entity\"" : "NULL"
        return (["\(alias).\"_key\"", entity] + table.columns.map { "\(alias).\($0.name.sqlIdentifier)" }).joined(separator: ", ")
    }

    /// The records that read one to-many storage: their slots by source key.
    private struct ToManyGroup {
        var relationship: SQLSchemaMapping.RelationshipMapping
        /// (record index, relationship ordinal) per source key.
        var slots: [Int64: [(Int, Int)]] = [:]
    }

    /// Fills every to-many relationship of `records`.
    package func loadToMany(_ records: inout [Record]) throws {
        // Group record positions by the relationship storage they need.
        var groups: [String: ToManyGroup] = [:]
        var lastEntity: SQLSchemaMapping.EntityMapping?
        for (r, record) in records.enumerated() {
            let entity: SQLSchemaMapping.EntityMapping
            if let last = lastEntity, last.name == record.id.entity {
                entity = last
            } else {
                entity = try mapping.entity(record.id.entity)
                lastEntity = entity
            }
            // A record answered without values (``FetchRequest/knownRecords``) needs none.
            guard entity.hasToMany, record.relationships.count == entity.relationships.count else { continue }
            for (ordinal, relationship) in entity.relationships.enumerated() where relationship.isToMany {
                let id: String
                switch relationship.storage {
                case .foreignKey: continue
                case .inverseForeignKey(let column, let position): id = "\(relationship.destinationTable)|\(column)|\(position ?? "")"
                case .joinTable(let table): id = table
                }
                groups[id, default: ToManyGroup(relationship: relationship)].slots[record.id.key, default: []].append((r, ordinal))
            }
        }
        for group in groups.values {
            let relationship = group.relationship
            let keys = Array(group.slots.keys)
            for chunk in keys.chunked(mapping.dialect.keysPerCondition) {
                let sql: String
                let condition: (sql: String, parameters: [SQLValue])
                switch relationship.storage {
                case .foreignKey:
                    continue
                case .inverseForeignKey(let column, let position):
                    let order = position.map { "\($0.sqlIdentifier), " } ?? ""
                    condition = mapping.dialect.keyListCondition(column.sqlIdentifier, keys: chunk)
                    sql = "SELECT \(column.sqlIdentifier), \"_key\", \"_entity\" FROM \(relationship.destinationTable.sqlIdentifier) WHERE \(condition.sql) ORDER BY \(column.sqlIdentifier), \(order)\"_key\""
                case .joinTable(let table):
                    condition = mapping.dialect.keyListCondition("j.\"source\"", keys: chunk)
                    sql = "SELECT j.\"source\", j.\"destination\", d.\"_entity\" FROM \(table.sqlIdentifier) j LEFT JOIN \(relationship.destinationTable.sqlIdentifier) d ON d.\"_key\" = j.\"destination\" WHERE \(condition.sql) ORDER BY j.\"source\", j.\"position\""
                }
                try connection.statement(sql).query(condition.parameters) { row in
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
    package func lookUpEntities(_ keys: [Int64], table: String, into entities: inout [Int64: String]) throws {
        for chunk in keys.chunked(mapping.dialect.keysPerCondition) {
            let condition = mapping.dialect.keyListCondition("\"_key\"", keys: chunk)
            try connection.statement("SELECT \"_key\", \"_entity\" FROM \(table.sqlIdentifier) WHERE \(condition.sql)")
                .query(condition.parameters) { row in
                    entities[row.int64(0)] = row.text(1)
                }
        }
    }
}
