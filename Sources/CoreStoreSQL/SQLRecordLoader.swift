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
    package static func columns(of table: SQLSchemaMapping.Table, alias: String) -> String {
        (["\(alias).\"_key\"", "\(alias).\"_entity\""] + table.columns.map { "\(alias).\($0.name.sqlIdentifier)" }).joined(separator: ", ")
    }

    /// Builds records from the rows of a whole-row select (see ``columns(of:alias:)``) as they
    /// are stepped, then completes them with ``finish()``.
    ///
    /// Values are decoded straight from the statement, without an intermediate row.
    package struct Accumulator {
        let loader: SQLRecordLoader
        private(set) var records: [Record] = []
        /// Keys of to-one destinations whose entity must be looked up, by destination table.
        private var polymorphic: [String: Set<Int64>] = [:]
        /// The entity of the previous row: rows of one table are mostly of one entity, and
        /// comparing its name to the column's bytes saves making a string and hashing it.
        private var lastEntity: SQLSchemaMapping.EntityMapping?
        /// The one entity whose rows the read can return, when the rows' `_entity` column need
        /// not be read at all: the request's entity has no sub-entities and is alone in its
        /// table (every row the store wrote there names it).
        private let soleEntity: SQLSchemaMapping.EntityMapping?

        /// An accumulator for rows of any entity of the mapping.
        package init(loader: SQLRecordLoader) {
            self.loader = loader
            self.soleEntity = nil
        }

        /// An accumulator for rows that a read of `entity` returns.
        package init(loader: SQLRecordLoader, reading entity: SQLSchemaMapping.EntityMapping) {
            self.loader = loader
            self.soleEntity = entity.coversTable && entity.kinds.count == 1 ? entity : nil
        }

        /// Adds the record of the statement's current row.
        package mutating func append(_ statement: any SQLRow) throws {
            let entity: SQLSchemaMapping.EntityMapping
            if let soleEntity {
                entity = soleEntity
            } else if let last = lastEntity, statement.textEquals(1, last.name) {
                entity = last
            } else {
                entity = try loader.mapping.entity(statement.text(1) ?? "")
                lastEntity = entity
            }
            var attributes: [Value] = []
            attributes.reserveCapacity(entity.attributeTypes.count)
            for (ordinal, type) in entity.attributeTypes.enumerated() {
                let index = entity.attributeColumnIndexes[ordinal]
                guard index >= 0 else { throw StorageError.unknownKey(key: entity.attributeColumns[ordinal], entity: entity.name) }
                attributes.append(try statement.value(Int32(index + 2), as: type))
            }
            var relationships: [[RecordID]] = []
            if !entity.relationships.isEmpty {
                relationships.reserveCapacity(entity.relationships.count)
                for (ordinal, relationship) in entity.relationships.enumerated() {
                    guard let index = entity.foreignKeyColumnIndexes[ordinal], let key = statement.integer(Int32(index + 2)) else {
                        relationships.append([])
                        continue
                    }
                    relationships.append([RecordID(entity: relationship.destination, key: key)])
                    if relationship.destinationIsPolymorphic { polymorphic[relationship.destinationTable, default: []].insert(key) }
                }
            }
            records.append(Record(id: RecordID(entity: entity.name, key: statement.int64(0)), attributes: attributes, relationships: relationships))
        }

        /// The records, in row order, with the entities of polymorphic to-one destinations and
        /// every to-many relationship filled in (further queries on the same connection).
        package consuming func finish() throws -> [Record] {
            let mapping = loader.mapping
            var entities: [Int64: String] = [:]
            for (destinationTable, keys) in polymorphic {
                try loader.lookUpEntities(Array(keys), table: destinationTable, into: &entities)
            }
            if !entities.isEmpty {
                for r in records.indices {
                    let entity = try mapping.entity(records[r].id.entity)
                    for (ordinal, relationship) in entity.relationships.enumerated() where !relationship.isToMany && relationship.destinationIsPolymorphic {
                        records[r].relationships[ordinal] = records[r].relationships[ordinal].map { RecordID(entity: entities[$0.key] ?? $0.entity, key: $0.key) }
                    }
                }
            }
            try loader.loadToMany(&records)
            return records
        }
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
            guard entity.hasToMany else { continue }
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
