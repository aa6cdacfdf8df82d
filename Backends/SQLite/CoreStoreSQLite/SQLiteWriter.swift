import Foundation
import CSQLite
import CoreStoreStorage

/// Applies one change set (with permanent identifiers) inside the write transaction.
struct SQLiteWriter {
    let connection: SQLiteConnection
    let mapping: SQLiteSchemaMapping

    func apply(_ changes: ChangeSet) throws {
        for id in changes.deletes { try delete(id) }
        try releaseUniqueValues(of: changes.updates)
        for update in changes.updates { try updateRow(update) }
        for record in changes.inserts { try insertRow(record) }
        for update in changes.updates { try writeToMany(update.record, changedKeys: update.changedKeys) }
        for record in changes.inserts { try writeToMany(record, changedKeys: nil) }
    }

    // MARK: Rows

    private func delete(_ id: RecordID) throws {
        let entity = try mapping.entity(id.entity)
        try connection.statement("DELETE FROM \(entity.table.sqlIdentifier) WHERE \"_key\" = ?1 AND \"_entity\" = ?2").execute([.integer(id.key), .text(entity.name)])
        guard connection.changes == 1 else { throw StorageError.recordNotFound(id) }
        for relationship in entity.relationships {
            if case .joinTable(let table) = relationship.storage {
                try connection.statement("DELETE FROM \(table.sqlIdentifier) WHERE \"source\" = ?1").execute([.integer(id.key)])
            }
        }
    }

    private func insertRow(_ record: Record) throws {
        let entity = try mapping.entity(record.id.entity)
        guard mapping.schema.entity(named: entity.name)?.isAbstract == false else { throw StorageError.unknownEntity(entity.name) }
        try checkShape(record, entity)
        var columns = ["\"_key\"", "\"_entity\""]
        var values: [SQLiteValue] = [.integer(record.id.key), .text(entity.name)]
        for (ordinal, column) in entity.attributeColumns.enumerated() {
            columns.append(column.sqlIdentifier)
            values.append(SQLiteValueCodec.encode(record.attributes[ordinal], as: entity.attributeTypes[ordinal]))
        }
        for (ordinal, relationship) in entity.relationships.enumerated() {
            if case .foreignKey(let column) = relationship.storage {
                columns.append(column.sqlIdentifier)
                values.append(record.relationships[ordinal].first.map { .integer($0.key) } ?? .null)
            }
        }
        let placeholders = (1...values.count).map { "?\($0)" }.joined(separator: ", ")
        let sql = "INSERT INTO \(entity.table.sqlIdentifier) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"
        do {
            try connection.statement(sql).execute(values)
        } catch let error as StorageError {
            throw try explain(error, record: record, entity: entity)
        }
    }

    private func updateRow(_ update: RecordUpdate) throws {
        let record = update.record
        let entity = try mapping.entity(record.id.entity)
        try checkShape(record, entity)
        var assignments: [String] = []
        var values: [SQLiteValue] = [.integer(record.id.key), .text(entity.name)]
        let schemaEntity = mapping.schema.entity(named: entity.name)
        for (ordinal, column) in entity.attributeColumns.enumerated() where update.changedKeys.contains(schemaEntity?.attributes[ordinal].name ?? "") {
            values.append(SQLiteValueCodec.encode(record.attributes[ordinal], as: entity.attributeTypes[ordinal]))
            assignments.append("\(column.sqlIdentifier) = ?\(values.count)")
        }
        for (ordinal, relationship) in entity.relationships.enumerated() where update.changedKeys.contains(relationship.name) {
            if case .foreignKey(let column) = relationship.storage {
                values.append(record.relationships[ordinal].first.map { .integer($0.key) } ?? .null)
                assignments.append("\(column.sqlIdentifier) = ?\(values.count)")
            }
        }
        if assignments.isEmpty {
            let exists = try connection.scalar("SELECT count(*) FROM \(entity.table.sqlIdentifier) WHERE \"_key\" = ?1 AND \"_entity\" = ?2", [.integer(record.id.key), .text(entity.name)])
            guard exists == .integer(1) else { throw StorageError.recordNotFound(record.id) }
            return
        }
        let sql = "UPDATE \(entity.table.sqlIdentifier) SET \(assignments.joined(separator: ", ")) WHERE \"_key\" = ?1 AND \"_entity\" = ?2"
        do {
            try connection.statement(sql).execute(values)
        } catch let error as StorageError {
            throw try explain(error, record: record, entity: entity)
        }
        guard connection.changes == 1 else { throw StorageError.recordNotFound(record.id) }
    }

    private func checkShape(_ record: Record, _ entity: SQLiteSchemaMapping.EntityMapping) throws {
        guard record.attributes.count == entity.attributeColumns.count, record.relationships.count == entity.relationships.count else {
            throw StorageError.invalidRequest("record \(record.id) does not match the shape of entity '\(entity.name)'")
        }
    }

    // MARK: To-many relationships

    private func writeToMany(_ record: Record, changedKeys: Set<String>?) throws {
        let entity = try mapping.entity(record.id.entity)
        for (ordinal, relationship) in entity.relationships.enumerated() where relationship.isToMany {
            if let changedKeys, !changedKeys.contains(relationship.name) { continue }
            let destinations = record.relationships[ordinal]
            switch relationship.storage {
            case .foreignKey, .inverseForeignKey(_, nil):
                continue
            case .inverseForeignKey(_, let position?):
                let statement = try connection.statement("UPDATE \(relationship.destinationTable.sqlIdentifier) SET \(position.sqlIdentifier) = ?2 WHERE \"_key\" = ?1")
                for (index, destination) in destinations.enumerated() {
                    try statement.execute([.integer(destination.key), .integer(Int64(index))])
                }
            case .joinTable(let table):
                if changedKeys != nil {
                    try connection.statement("DELETE FROM \(table.sqlIdentifier) WHERE \"source\" = ?1").execute([.integer(record.id.key)])
                }
                let statement = try connection.statement("INSERT INTO \(table.sqlIdentifier) (\"source\", \"position\", \"destination\") VALUES (?1, ?2, ?3)")
                for (index, destination) in destinations.enumerated() {
                    try statement.execute([.integer(record.id.key), .integer(Int64(index)), .integer(destination.key)])
                }
            }
        }
    }

    // MARK: Uniqueness

    /// Clears the constrained columns of updated rows first, so that values can move between
    /// records of one commit (a swap) without a false violation.
    private func releaseUniqueValues(of updates: [RecordUpdate]) throws {
        for update in updates {
            let entity = try mapping.entity(update.record.id.entity)
            let constrained = Set(mapping.schema.uniqueConstraints(applyingTo: entity.name).flatMap(\.attributes)).intersection(update.changedKeys)
            guard !constrained.isEmpty else { continue }
            let columns = constrained.sorted().compactMap { mapping.schema.attributeOrdinal($0, in: entity.name).map { entity.attributeColumns[$0] } }
            let sql = "UPDATE \(entity.table.sqlIdentifier) SET \(columns.map { "\($0.sqlIdentifier) = NULL" }.joined(separator: ", ")) WHERE \"_key\" = ?1"
            try connection.statement(sql).execute([.integer(update.record.id.key)])
        }
    }

    /// SQLite's extended result codes `SQLITE_CONSTRAINT_PRIMARYKEY` and `SQLITE_CONSTRAINT_UNIQUE`
    /// (C macros that Swift does not import).
    static let constraintPrimaryKey = 1555
    static let constraintUnique = 2067

    /// Turns SQLite's constraint errors into the contract's errors.
    private func explain(_ error: StorageError, record: Record, entity: SQLiteSchemaMapping.EntityMapping) throws -> StorageError {
        guard case .engine(let code, _) = error else { return error }
        if code == SQLiteWriter.constraintPrimaryKey {
            return .invalidRequest("record \(record.id) is inserted twice")
        }
        guard code == SQLiteWriter.constraintUnique else { return error }
        for (owner, attributes) in mapping.schema.uniqueConstraints(applyingTo: entity.name) {
            let ordinals = attributes.compactMap { mapping.schema.attributeOrdinal($0, in: entity.name) }
            let values = ordinals.map { record.attributes[$0] }
            guard ordinals.count == attributes.count, !values.contains(.null), let ownerMapping = mapping.entities[owner] else { continue }
            var parameters: [SQLiteValue] = [.integer(record.id.key)]
            var conditions = ["\"_key\" <> ?1"]
            for ordinal in ordinals {
                parameters.append(SQLiteValueCodec.encode(record.attributes[ordinal], as: entity.attributeTypes[ordinal]))
                conditions.append("\(entity.attributeColumns[ordinal].sqlIdentifier) IS ?\(parameters.count)")
            }
            if let filter = mapping.kindFilter(ownerMapping, alias: entity.table.sqlIdentifier, includesSubentities: true) { conditions.append(filter) }
            let clash = try connection.scalar("SELECT count(*) FROM \(entity.table.sqlIdentifier) WHERE \(conditions.joined(separator: " AND "))", parameters)
            if clash != .integer(0) {
                return .uniqueConstraintViolation(entity: owner, attributes: attributes, values: values)
            }
        }
        return error
    }
}
