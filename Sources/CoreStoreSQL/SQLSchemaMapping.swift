import Foundation
import CoreStoreStorage

/// Where each entity, attribute and relationship of a ``StoreSchema`` lives in the database.
///
/// - Every entity hierarchy (a root entity and all its descendants) shares one table, named
///   after the root entity, with the columns `_key` (the record key, `INTEGER PRIMARY KEY`) and
///   `_entity` (the record's concrete entity), then one column per attribute of every entity of
///   the hierarchy. A column is named after its attribute; when two entities of a hierarchy
///   declare the same name, the later one's column is named `Entity.name`.
/// - A to-one relationship is a foreign-key column holding the destination's key.
/// - A to-many relationship whose inverse is to-one is not stored on its own side: it is read
///   from the inverse's foreign-key column. If it is ordered, the destination table has a
///   position column (`relationship.position`).
/// - Any other to-many relationship has a join table `Entity.relationship` with the columns
///   `source`, `position` and `destination`.
/// - Indexes, compound indexes and unique constraints of the schema become indexes; a
///   unique constraint is a partial unique index over the rows of its entity and sub-entities.
/// - Every table and index name starts with ``tablePrefix`` (empty for a store's own tables; a
///   migration builds its destination tables beside the source ones under another prefix).
///   All generated SQL takes its names from the mapping.
///
/// Column types, placeholders and the DDL's database-specific parts come from the mapping's
/// ``SQLDialect``.
package struct SQLSchemaMapping: Sendable {
    /// How one relationship is stored.
    package enum RelationshipStorage: Sendable {
        /// A to-one: the foreign-key column in the owner's table.
        case foreignKey(column: String)
        /// A to-many read from the to-one inverse's foreign key in the destination table.
        case inverseForeignKey(column: String, positionColumn: String?)
        /// A to-many in a join table.
        case joinTable(table: String)
    }

    package struct RelationshipMapping: Sendable {
        package let name: String
        package let storage: RelationshipStorage
        package let destination: String
        package let destinationTable: String
        /// Whether the destination entity has sub-entities, so a key alone does not name the
        /// destination's entity.
        package let destinationIsPolymorphic: Bool
        package let isToMany: Bool
    }

    /// One entity's place in its table, with the SQL its row writes use built once here
    /// (building SQL text per row was the main cost of writing).
    ///
    /// A class so that handing it around per row costs one reference count, not one per field.
    package final class EntityMapping: Sendable {
        package let name: String
        package let table: String
        /// The entity and its descendants: the `_entity` values of its records.
        package let kinds: [String]
        /// Whether `kinds` covers every row of the table.
        package let coversTable: Bool
        /// Whether every row of the table is of this entity alone (it covers the table and has
        /// no sub-entities): a read of it need not look at the rows' `_entity` column.
        package var isAloneInTable: Bool { coversTable && kinds.count == 1 }
        /// ` AND "_entity" = '…'`, which keeps a statement on this entity's rows of its table;
        /// empty when every row of the table is of this entity (``isAloneInTable``), so that a
        /// write by key does not read each row's `_entity` (the last column of a SQLite row).
        package var ownRowsTerm: String { isAloneInTable ? "" : " AND \"_entity\" = \(name.sqlLiteral)" }
        package let attributeColumns: [String]
        package let attributeTypes: [AttributeType]
        package let relationships: [RelationshipMapping]
        /// Whether the schema declares the entity abstract (it can have no records of its own).
        package let isAbstract: Bool
        /// For each attribute, its position in the table's ``Table/columns`` (the result column
        /// `index + 2` of a whole-row select, after `_key` and `_entity`).
        package let attributeColumnIndexes: [Int]
        /// For each relationship, the position of its foreign-key column in the table's columns;
        /// `nil` when it has none.
        package let foreignKeyColumnIndexes: [Int?]
        /// The ordinals of the relationships stored as a foreign-key column, in order.
        package let foreignKeyOrdinals: [Int]
        /// Whether some relationship is a to-many (stored apart from the row).
        package let hasToMany: Bool
        /// The attributes covered by a unique constraint of the entity or an ancestor.
        package let uniqueAttributes: Set<String>
        /// `INSERT` of a whole row: `?1` is the key, then one parameter per attribute, then one
        /// per relationship of ``foreignKeyOrdinals``. `_entity` is a literal.
        package var insertSQL: String { insertSQL(rows: 1) }
        /// The parameters of one row of an `INSERT` (``insertSQL``): the key, the attributes and
        /// the foreign keys.
        package var insertParameterCount: Int { 1 + slotColumns.count }
        /// `INSERT INTO … (…) VALUES `, before the rows.
        private let insertHead: String
        /// Whether some relationship is stored in a join table (whose rows a delete removes).
        package let hasJoinTables: Bool
        /// The update slot of each attribute and foreign-key relationship, by property name:
        /// attributes first (slot = ordinal), then ``foreignKeyOrdinals`` in order.
        package let updateSlots: [String: Int]
        /// The quoted column of each update slot.
        private let slotColumns: [String]
        private let dialect: any SQLDialect

        package init(name: String, table: String, kinds: [String], coversTable: Bool, attributeColumns: [String],
             attributeTypes: [AttributeType], relationships: [RelationshipMapping], description: EntityDescription,
             tableColumns: [String], schema: StoreSchema, dialect: any SQLDialect) {
            self.dialect = dialect
            self.name = name
            self.table = table
            self.kinds = kinds
            self.coversTable = coversTable
            self.attributeColumns = attributeColumns
            self.attributeTypes = attributeTypes
            self.relationships = relationships
            self.isAbstract = description.isAbstract
            var columnIndex: [String: Int] = [:]
            for (i, column) in tableColumns.enumerated() { columnIndex[column] = i }
            // Every attribute column exists by the time an entity is mapped (see the initializer).
            attributeColumnIndexes = attributeColumns.map { columnIndex[$0] ?? -1 }
            foreignKeyColumnIndexes = relationships.map { relationship in
                guard case .foreignKey(let column) = relationship.storage else { return nil }
                return columnIndex[column]
            }
            foreignKeyOrdinals = relationships.indices.filter {
                if case .foreignKey = relationships[$0].storage { return true }
                return false
            }
            hasToMany = relationships.contains(where: \.isToMany)
            uniqueAttributes = Set(schema.uniqueConstraints(applyingTo: name).flatMap(\.attributes))

            let tableIdentifier = table.sqlIdentifier
            var slots: [String: Int] = [:]
            var columns: [String] = []
            for (ordinal, column) in attributeColumns.enumerated() {
                if ordinal < description.attributes.count { slots[description.attributes[ordinal].name] = columns.count }
                columns.append(column.sqlIdentifier)
            }
            for ordinal in foreignKeyOrdinals {
                guard case .foreignKey(let column) = relationships[ordinal].storage else { continue }
                slots[relationships[ordinal].name] = columns.count
                columns.append(column.sqlIdentifier)
            }
            updateSlots = slots
            slotColumns = columns
            insertHead = "INSERT INTO \(tableIdentifier) (\"_key\", \"_entity\"\(columns.map { ", " + $0 }.joined())) VALUES "
            hasJoinTables = relationships.contains {
                if case .joinTable = $0.storage { return true }
                return false
            }
        }

        /// `INSERT` of `rows` whole rows in one statement: row `r` takes the parameters from
        /// `r * insertParameterCount + 1` on, laid out as in ``insertSQL``. With `conflicts`, a
        /// row that the key or a unique index refuses is handled as it says; without, it fails
        /// the statement.
        package func insertSQL(rows: Int, conflicts: SQLBatchInsertConflicts? = nil) -> String {
            let perRow = insertParameterCount
            var sql = conflicts == .stopAtRefusedRow ? "INSERT OR FAIL" + insertHead.dropFirst("INSERT".count) : insertHead
            sql.reserveCapacity(insertHead.utf8.count + rows * perRow * 6)
            for row in 0..<rows {
                let first = row * perRow + 1
                sql += row == 0 ? "(" : ", ("
                sql += dialect.placeholder(first) + ", " + name.sqlLiteral
                for parameter in first + 1 ..< first + perRow { sql += ", " + dialect.placeholder(parameter) }
                sql += ")"
            }
            if conflicts == .skipRefusedRows { sql += " ON CONFLICT DO NOTHING RETURNING \"_key\"" }
            return sql
        }

        /// `UPDATE` of the columns of `slots` (ascending) of the row with key `?1` of this very
        /// entity; slot `slots[i]` is parameter `?(i + 2)`.
        package func updateSQL(slots: [Int]) -> String {
            let assignments = slots.enumerated().map { "\(slotColumns[$1]) = \(dialect.placeholder($0 + 2))" }.joined(separator: ", ")
            return "UPDATE \(table.sqlIdentifier) SET \(assignments) WHERE \"_key\" = \(dialect.placeholder(1))\(ownRowsTerm)"
        }
    }

    package struct Table: Sendable {
        /// The table's name in the database (``tablePrefix`` and the root entity's name).
        package let name: String
        /// The root entity of the hierarchy the table holds.
        package let rootEntity: String
        /// Columns after `_key` and `_entity`, with their declared types.
        package var columns: [(name: String, definition: String)] = []
    }

    package let schema: StoreSchema
    /// The database the SQL is written for.
    package let dialect: any SQLDialect
    /// The start of every table and index name.
    package let tablePrefix: String
    /// The entity tables by name (see ``tableName(of:)``).
    package private(set) var tables: [String: Table] = [:]
    /// The names of the entity tables, in schema order.
    package private(set) var tableOrder: [String] = []
    /// The names of the join tables of to-many relationships.
    package private(set) var joinTables: [String] = []
    package private(set) var entities: [String: EntityMapping] = [:]
    /// The `CREATE TABLE` statements of every entity and join table, without indexes.
    package private(set) var tableCreationSQL: [String] = []
    /// Every index of the schema (see ``SQLIndexDefinition``).
    package private(set) var indexes: [SQLIndexDefinition] = []

    /// The DDL that creates every table and index.
    package var creationSQL: [String] { tableCreationSQL + indexes.map(\.sql) }

    /// Every table of the mapping: entity tables, then join tables.
    package var allTables: [String] { tableOrder + joinTables }

    /// The name of the table holding the records of `entity` (and of its whole hierarchy).
    package func tableName(of entity: String) -> String {
        tablePrefix + schema.rootEntity(of: entity)
    }

    /// The mapping of `schema` in `dialect`, with every table and index name starting with
    /// `tablePrefix`.
    package init(schema: StoreSchema, tablePrefix: String = "", dialect: any SQLDialect) throws {
        self.schema = schema
        self.tablePrefix = tablePrefix
        self.dialect = dialect
        var taken: [String: Set<String>] = [:]
        func column(_ table: String, _ candidate: String, _ entity: String) -> String {
            var name = candidate
            if taken[table, default: ["_key", "_entity"]].contains(name) { name = "\(entity).\(candidate)" }
            var n = 2
            while taken[table, default: ["_key", "_entity"]].contains(name) { name = "\(entity).\(candidate)\(n)"; n += 1 }
            taken[table, default: ["_key", "_entity"]].insert(name)
            return name
        }

        // Attributes and to-one foreign keys, parents before children.
        var attributeColumns: [String: [String]] = [:]
        var toOneColumns: [String: [String: String]] = [:]
        for entity in schema.entities {
            let root = schema.rootEntity(of: entity.name)
            let table = tablePrefix + root
            if tables[table] == nil { tables[table] = Table(name: table, rootEntity: root); tableOrder.append(table) }
            let parent = entity.parentName.flatMap { schema.entity(named: $0) }
            var columns = parent.flatMap { attributeColumns[$0.name] } ?? []
            for attribute in entity.attributes.dropFirst(columns.count) {
                let name = column(table, attribute.name, entity.name)
                tables[table]?.columns.append((name, dialect.columnDefinition(attribute.type)))
                columns.append(name)
            }
            attributeColumns[entity.name] = columns
            var foreignKeys = parent.flatMap { toOneColumns[$0.name] } ?? [:]
            for relationship in entity.relationships.dropFirst(parent?.relationships.count ?? 0) where !relationship.kind.isToMany {
                let name = column(table, relationship.name, entity.name)
                tables[table]?.columns.append((name, dialect.keyReferenceColumnType))
                foreignKeys[relationship.name] = name
            }
            toOneColumns[entity.name] = foreignKeys
        }

        // To-many relationships, now that every foreign key has its column.
        var relationshipMappings: [String: [RelationshipMapping]] = [:]
        for entity in schema.entities {
            let root = schema.rootEntity(of: entity.name)
            let table = tablePrefix + root
            let parent = entity.parentName.flatMap { schema.entity(named: $0) }
            var mappings = parent.flatMap { relationshipMappings[$0.name] } ?? []
            for relationship in entity.relationships.dropFirst(mappings.count) {
                guard let destination = schema.entity(named: relationship.destinationEntity) else {
                    throw StorageError.invalidRequest("relationship '\(entity.name).\(relationship.name)' points to '\(relationship.destinationEntity)', which is not in this store")
                }
                let destinationTable = tableName(of: destination.name)
                let storage: RelationshipStorage
                if !relationship.kind.isToMany {
                    storage = .foreignKey(column: toOneColumns[entity.name]?[relationship.name] ?? relationship.name)
                } else if let inverseName = relationship.inverseName,
                          let inverseOrdinal = destination.relationshipOrdinal(inverseName),
                          !destination.relationships[inverseOrdinal].kind.isToMany,
                          let inverseColumn = toOneColumns[destination.name]?[inverseName] {
                    var position: String?
                    if relationship.kind == .toManyOrdered {
                        let name = column(destinationTable, "\(relationship.name).position", entity.name)
                        tables[destinationTable]?.columns.append((name, dialect.keyReferenceColumnType))
                        position = name
                    }
                    storage = .inverseForeignKey(column: inverseColumn, positionColumn: position)
                } else {
                    let joinTable = "\(tablePrefix)\(entity.name).\(relationship.name)"
                    joinTables.append(joinTable)
                    storage = .joinTable(table: joinTable)
                }
                mappings.append(RelationshipMapping(
                    name: relationship.name, storage: storage, destination: destination.name,
                    destinationTable: destinationTable,
                    destinationIsPolymorphic: schema.entityAndDescendants(destination.name).count > 1,
                    isToMany: relationship.kind.isToMany
                ))
            }
            relationshipMappings[entity.name] = mappings
            let kinds = schema.entityAndDescendants(entity.name)
            entities[entity.name] = EntityMapping(
                name: entity.name, table: table, kinds: kinds,
                coversTable: kinds.count == schema.entityAndDescendants(root).count,
                attributeColumns: attributeColumns[entity.name] ?? [],
                attributeTypes: entity.attributes.map(\.type),
                relationships: mappings, description: entity,
                tableColumns: tables[table]?.columns.map(\.name) ?? [], schema: schema, dialect: dialect
            )
        }
        tableCreationSQL = makeTableCreationSQL()
        indexes = makeIndexes()
    }

    package func entity(_ name: String) throws -> EntityMapping {
        guard let mapping = entities[name] else { throw StorageError.unknownEntity(name) }
        return mapping
    }

    /// `_entity IN (…)` for the rows of `mapping` (and descendants), or `nil` when that is the
    /// whole table.
    package func kindFilter(_ mapping: EntityMapping, alias: String, includesSubentities: Bool) -> String? {
        let kinds = includesSubentities ? mapping.kinds : [mapping.name]
        if includesSubentities && mapping.coversTable { return nil }
        return "\(alias).\"_entity\" IN (\(kinds.map(\.sqlLiteral).joined(separator: ", ")))"
    }
}
