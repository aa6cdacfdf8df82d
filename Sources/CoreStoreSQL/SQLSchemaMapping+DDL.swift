import Foundation
import CoreStoreStorage

/// One index of a ``SQLSchemaMapping``: its name, table and `CREATE INDEX` statement, and for
/// a unique constraint what a violation reports.
package struct SQLIndexDefinition: Sendable, Hashable {
    /// The index name (starts with the mapping's table prefix).
    package let name: String
    /// The table it indexes.
    package let table: String
    /// The `CREATE [UNIQUE] INDEX` statement (SQLite keeps it verbatim in `sqlite_master`).
    package let sql: String
    /// The unique constraint the index enforces, `nil` for a plain index.
    package let uniqueConstraint: UniqueConstraint?

    /// A unique constraint of the schema as the index enforces it.
    package struct UniqueConstraint: Sendable, Hashable {
        /// The entity that declares the constraint (its scope: the entity and its descendants).
        package let entity: String
        /// The constrained attributes.
        package let attributes: [String]
        /// The columns of `attributes`, in order.
        package let columns: [String]
        /// The attribute types of `attributes`, in order.
        package let types: [AttributeType]
        /// `_entity IN (…)` limiting the index to the constraint's rows, `nil` for the whole table.
        package let kindFilter: String?
    }
}

extension SQLSchemaMapping {
    /// `CREATE TABLE` of every entity table, then of every join table.
    package func makeTableCreationSQL() -> [String] {
        var sql: [String] = []
        for name in tableOrder {
            guard let table = tables[name] else { continue }
            let keyColumns = ["\"_key\" \(dialect.keyColumnDefinition)", "\"_entity\" \(dialect.entityColumnDefinition)"]
            let attributeColumns = table.columns.map { "\($0.name.sqlIdentifier) \($0.definition)".trimmingCharacters(in: .whitespaces) }
            let columns = dialect.placesKeyColumnsLast ? attributeColumns + keyColumns : keyColumns + attributeColumns
            sql.append("CREATE TABLE \(name.sqlIdentifier) (\(columns.joined(separator: ", ")))")
        }
        for joinTable in joinTables {
            sql.append(dialect.joinTableCreation(joinTable.sqlIdentifier))
        }
        return sql
    }

    /// Every index: `_entity` of shared tables, foreign keys, positions, join-table
    /// destinations, indexed attributes, compound indexes and unique constraints.
    package func makeIndexes() -> [SQLIndexDefinition] {
        var indexes: [SQLIndexDefinition] = []
        // An index of a record table holds the rows' keys too, where the dialect adds them; a
        // join table has no `_key`.
        func add(_ name: String, _ table: String, _ columns: [String], unique: SQLIndexDefinition.UniqueConstraint? = nil, ofRecords: Bool = true) {
            let prefixedName = tablePrefix + name
            let filter = unique?.kindFilter.map { " WHERE " + $0 } ?? ""
            let inclusion = ofRecords ? dialect.indexKeyInclusion : ""
            let sql = "CREATE \(unique == nil ? "" : "UNIQUE ")INDEX \(prefixedName.sqlIdentifier) ON \(table.sqlIdentifier) (\(columns.joined(separator: ", ")))\(inclusion)\(filter)"
            indexes.append(SQLIndexDefinition(name: prefixedName, table: table, sql: sql, uniqueConstraint: unique))
        }
        // The column lists already indexed, per table: the schema marks the attribute of a
        // one-attribute index `isIndexed` and also lists it in `indexes`, and a second identical
        // index would only double the cost of every write.
        var indexed: Set<[String]> = []
        for name in tableOrder {
            guard let table = tables[name], schema.entityAndDescendants(table.rootEntity).count > 1 else { continue }
            add("\(table.rootEntity)._entity", name, ["\"_entity\""])
        }
        for entity in schema.entities {
            guard let mapping = entities[entity.name] else { continue }
            let table = mapping.table
            let root = schema.rootEntity(of: entity.name)
            let parentRelationships = entity.parentName.flatMap { schema.entity(named: $0) }?.relationships.count ?? 0
            for relationship in mapping.relationships.dropFirst(parentRelationships) {
                switch relationship.storage {
                case .foreignKey(let column):
                    add("\(root).\(column)", table, [column.sqlIdentifier])
                case .inverseForeignKey(let column, let position?):
                    add("\(schema.rootEntity(of: relationship.destination)).\(position)", relationship.destinationTable, [column.sqlIdentifier, position.sqlIdentifier])
                case .inverseForeignKey:
                    break
                case .joinTable(let joinTable):
                    add("\(joinTable.dropFirst(tablePrefix.count)).destination", joinTable, ["\"destination\""], ofRecords: false)
                }
            }
            let parentAttributes = entity.parentName.flatMap { schema.entity(named: $0) }?.attributes.count ?? 0
            for (ordinal, attribute) in entity.attributes.enumerated().dropFirst(parentAttributes) where attribute.isIndexed {
                let column = mapping.attributeColumns[ordinal]
                guard indexed.insert([table, column]).inserted else { continue }
                add("\(root).\(column)", table, [column.sqlIdentifier])
            }
            for attributes in entity.indexes {
                let columns = attributes.compactMap { entity.attributeOrdinal($0).map { mapping.attributeColumns[$0] } }
                guard columns.count == attributes.count, !columns.isEmpty, indexed.insert([table] + columns).inserted else { continue }
                add("\(entity.name)(\(attributes.joined(separator: ",")))", table, columns.map(\.sqlIdentifier))
            }
            for attributes in entity.uniqueConstraints {
                let ordinals = attributes.compactMap { entity.attributeOrdinal($0) }
                guard ordinals.count == attributes.count, !ordinals.isEmpty else { continue }
                let columns = ordinals.map { mapping.attributeColumns[$0] }
                let filter = kindFilter(mapping, alias: table.sqlIdentifier, includesSubentities: true)
                    .map { $0.replacingOccurrences(of: "\(table.sqlIdentifier).", with: "") }
                let constraint = SQLIndexDefinition.UniqueConstraint(
                    entity: entity.name, attributes: attributes, columns: columns,
                    types: ordinals.map { entity.attributes[$0].type }, kindFilter: filter
                )
                add("unique \(entity.name)(\(attributes.joined(separator: ",")))", table, columns.map(\.sqlIdentifier), unique: constraint)
            }
        }
        return indexes
    }
}
