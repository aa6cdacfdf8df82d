import Foundation
import CoreStoreStorage

/// Where a writer leaves the positions of ordered to-many relationships whose destination row
/// is not written yet (a migration writing in batches), until the rows exist.
package protocol SQLPendingPositions: AnyObject {
    /// Notes the position just written for the row `key` of `table`: `found` tells whether the
    /// row exists.
    func record(table: String, column: String, key: Int64, position: Int64, found: Bool) throws
}

/// Applies one change set (with permanent identifiers) inside the write transaction.
///
/// The SQL of every row write is built once per entity (see
/// ``SQLSchemaMapping/EntityMapping``) and its prepared statements are kept here for the
/// writer's life (a change set, or every commit of a store that keeps its writer), so a row
/// costs binding and stepping only. Every statement is reset before it is bound.
package final class SQLWriter<Connection: SQLConnection> {
    package let connection: Connection
    package let mapping: SQLSchemaMapping
    /// Where positions of ordered to-many relationships whose destination row is not written yet
    /// wait (a migration writing in batches); `nil` for a commit, which writes every row first.
    package let pendingPositions: (any SQLPendingPositions)?
    private let dialect: any SQLDialect

    package init(connection: Connection, mapping: SQLSchemaMapping, pendingPositions: (any SQLPendingPositions)? = nil) {
        self.connection = connection
        self.mapping = mapping
        self.pendingPositions = pendingPositions
        self.dialect = mapping.dialect
    }

    /// One entity's mapping with the statements this change set prepared for it.
    private final class EntityStatements {
        let entity: SQLSchemaMapping.EntityMapping
        var insert: Connection.Statement?
        /// Batched `INSERT`s by their number of rows (powers of two, see ``insertRun(_:count:)``).
        var batchInserts: [Int: Connection.Statement] = [:]
        /// `UPDATE` statements by their sorted update slots.
        var updates: [[Int]: Connection.Statement] = [:]

        init(_ entity: SQLSchemaMapping.EntityMapping) {
            self.entity = entity
        }
    }

    private var statementsByEntity: [String: EntityStatements] = [:]
    /// The entry used last: change sets mostly hold runs of one entity, and comparing a name is
    /// cheaper than hashing it.
    private var lastStatements: EntityStatements?

    private func statements(_ entityName: String) throws -> EntityStatements {
        if let last = lastStatements, last.entity.name == entityName { return last }
        let entry: EntityStatements
        if let existing = statementsByEntity[entityName] {
            entry = existing
        } else {
            entry = EntityStatements(try mapping.entity(entityName))
            statementsByEntity[entityName] = entry
        }
        lastStatements = entry
        return entry
    }

    /// Writes merged changes (see `ChangeMerger`, which also checked every record against the
    /// schema and that every replaced or deleted record exists; a delete it did not read is
    /// checked here, by the rows the statement removed).
    package func apply(_ changes: MergedChanges) throws {
        try delete(changes.deletedIDs)
        try releaseUniqueValues(of: changes.updates)
        // Each record is read in place, by address (see `forEachElementAddress`).
        try changes.updates.forEachElementAddress { try updateRow(at: $0) }
        try insertRows(changes.inserts)
        try changes.updates.forEachElementAddress { update in
            try writeToMany(at: RecordReplacement.newRecord(at: update), changedKeys: update.pointee.changedKeys)
        }
        try changes.inserts.forEachElementAddress { try writeToMany(at: $0, changedKeys: nil) }
    }

    // MARK: Rows

    /// Deletes the rows of `ids` (which exist: the merge checked) and their join-table rows,
    /// for each run of consecutive identifiers of one entity.
    private func delete(_ ids: [RecordID]) throws {
        var start = 0
        while start < ids.count {
            let entityName = ids[start].entity
            var end = start + 1
            while end < ids.count, ids[end].entity == entityName { end += 1 }
            try deleteRows(ids[start..<end].map(\.key), of: try statements(entityName).entity)
            start = end
        }
    }

    /// The fewest consecutive keys deleted by one key range rather than in a key list.
    static var minimumRangeRun: Int { 16 }

    /// Deletes rows of one entity: every run of at least ``minimumRangeRun`` consecutive keys by
    /// one range (keys handed out in order make a bulk delete mostly such runs, and a range
    /// costs the engine a fraction of a list: no list to build and probe), the other keys in
    /// lists of the dialect's size. A range is exact: every key in it is deleted, and no record
    /// of another entity can hold one.
    private func deleteRows(_ unsorted: [Int64], of entity: SQLSchemaMapping.EntityMapping) throws {
        let keys = unsorted.sorted()
        var scattered: [Int64] = []
        var first = 0
        while first < keys.count {
            var last = first
            while last + 1 < keys.count, keys[last] < .max, keys[last + 1] == keys[last] + 1 { last += 1 }
            if last - first + 1 >= Self.minimumRangeRun {
                try deleteRange(keys[first]...keys[last], of: entity)
            } else {
                scattered.append(contentsOf: keys[first...last])
            }
            first = last + 1
        }
        for batch in scattered.chunked(dialect.keysPerCondition) { try deleteBatch(batch, of: entity) }
    }

    private func deleteRange(_ keys: ClosedRange<Int64>, of entity: SQLSchemaMapping.EntityMapping) throws {
        let bounds: [SQLValue] = [.integer(keys.lowerBound), .integer(keys.upperBound)]
        let range = "BETWEEN \(dialect.placeholder(1)) AND \(dialect.placeholder(2))"
        try connection.statement("DELETE FROM \(entity.table.sqlIdentifier) WHERE \"_key\" \(range)\(entity.ownRowsTerm)").execute(bounds)
        try expectRemoved(Int(keys.upperBound - keys.lowerBound) + 1, from: keys.lowerBound, of: entity)
        guard entity.hasJoinTables else { return }
        for relationship in entity.relationships {
            guard case .joinTable(let joinTable) = relationship.storage else { continue }
            try connection.statement("DELETE FROM \(joinTable.sqlIdentifier) WHERE \"source\" \(range)").execute(bounds)
        }
    }

    private func deleteBatch(_ keys: ArraySlice<Int64>, of entity: SQLSchemaMapping.EntityMapping) throws {
        let table = entity.table.sqlIdentifier
        let condition = dialect.keyListCondition("\"_key\"", keys: keys)
        try connection.statement("DELETE FROM \(table) WHERE \(condition.sql)\(entity.ownRowsTerm)").execute(condition.parameters)
        try expectRemoved(keys.count, from: keys.first ?? 0, of: entity)
        guard entity.hasJoinTables else { return }
        let sourceCondition = dialect.keyListCondition("\"source\"", keys: keys)
        for relationship in entity.relationships {
            guard case .joinTable(let joinTable) = relationship.storage else { continue }
            try connection.statement("DELETE FROM \(joinTable.sqlIdentifier) WHERE \(sourceCondition.sql)").execute(sourceCondition.parameters)
        }
    }

    /// Fails the commit unless the last delete removed `count` rows: each key it named held a
    /// record of the entity (keys are distinct; `first` names the first of them).
    private func expectRemoved(_ count: Int, from first: Int64, of entity: SQLSchemaMapping.EntityMapping) throws {
        let removed = connection.changes
        guard removed != count else { return }
        throw StorageError.conflict(
            RecordID(entity: entity.name, key: first),
            reason: "begins \(count) records to delete of which \(removed) exist (another connection deleted the others)"
        )
    }

    /// The most rows one batched `INSERT` writes: beyond this, a longer statement saves little.
    static var maximumRowsPerInsert: Int { 64 }

    /// Inserts the records, each run of one entity in batched `INSERT`s: one statement writes
    /// many rows, so that the engine opens its cursors once for them (SQLite then appends keys
    /// handed out in order without searching the table for each) and PostgreSQL takes one round
    /// trip for them instead of one per row.
    private func insertRows(_ inserts: [Record]) throws {
        try inserts.withUnsafeBufferPointer { inserts in
            guard let base = inserts.baseAddress else { return }
            var start = 0
            while start < inserts.count {
                let entity = base[start].id.entity
                var end = start + 1
                while end < inserts.count, base[end].id.entity == entity { end += 1 }
                try insertRun(base + start, count: end - start)
                start = end
            }
        }
    }

    /// Inserts `count` records of one entity from `first` on: as many full batches as fit, the
    /// rest in batches of the next smaller powers of two (so that an entity needs at most seven
    /// prepared statements), a single record alone.
    private func insertRun(_ first: UnsafePointer<Record>, count: Int) throws {
        let entry = try statements(first.pointee.id.entity)
        let fitting = max(1, min(Self.maximumRowsPerInsert, dialect.maximumParameters / entry.entity.insertParameterCount))
        var batch = 1
        while batch * 2 <= fitting { batch *= 2 }
        var offset = 0
        while offset < count {
            while batch > count - offset { batch /= 2 }
            if batch == 1 {
                try insertRow(at: first + offset)
            } else {
                try insertBatch(first + offset, rows: batch, entry: entry)
            }
            offset += batch
        }
    }

    /// Inserts `rows` records of `entry`'s entity from `first` on with one statement. Rows the
    /// key or a unique index refuses (see ``SQLBatchInsertConflicts``) are then inserted alone,
    /// so that the error names the first of them as ``insertRow(at:)`` does.
    private func insertBatch(_ first: UnsafePointer<Record>, rows: Int, entry: EntityStatements) throws {
        let entity = entry.entity
        let conflicts = dialect.batchInsertConflicts
        let statement: Connection.Statement
        if let prepared = entry.batchInserts[rows] {
            statement = prepared
        } else {
            statement = try connection.statement(entity.insertSQL(rows: rows, conflicts: conflicts))
            entry.batchInserts[rows] = statement
        }
        statement.reset()
        let written: Set<Int64>
        switch conflicts {
        case .stopAtRefusedRow:
            var index: Int32 = 1
            for row in 0..<rows { try bindRow(at: first + row, of: entity, to: statement, from: &index) }
            do {
                try statement.run()
                return
            } catch let error as StorageError where connection.constraintViolation(in: error) != nil {
                // The rows before the refused one are written, and the statement counts them as
                // its changes. (Asking the table which keys it holds would not do: a row refused
                // because its key is taken finds the record that took it.)
                written = Set((0..<min(max(connection.changes, 0), rows)).map { first[$0].id.key })
            }
        case .skipRefusedRows:
            var values: [SQLValue] = []
            values.reserveCapacity(rows * entity.insertParameterCount)
            for row in 0..<rows { appendRow(at: first + row, of: entity, to: &values) }
            var returned = Set<Int64>(minimumCapacity: rows)
            try statement.query(values) { returned.insert($0.int64(0)) }
            guard returned.count < rows else { return }
            written = returned
        }
        for row in 0..<rows where !written.contains(first[row].id.key) {
            try insertRow(at: first + row)
        }
    }

    private func insertRow(at record: UnsafePointer<Record>) throws {
        let entry = try statements(record.pointee.id.entity)
        let entity = entry.entity
        let statement: Connection.Statement
        if let prepared = entry.insert {
            statement = prepared
        } else {
            statement = try connection.statement(entity.insertSQL)
            entry.insert = statement
        }
        statement.reset()
        var index: Int32 = 1
        try bindRow(at: record, of: entity, to: statement, from: &index)
        do {
            try statement.run()
        } catch let error as StorageError {
            throw try explain(error, record: record.pointee, entity: entity)
        }
    }

    /// Binds the record's row from parameter `index` on, as laid out by ``SQLSchemaMapping/EntityMapping/insertSQL``:
    /// the key, the attributes, the foreign keys; `index` ends after them.
    private func bindRow(at record: UnsafePointer<Record>, of entity: SQLSchemaMapping.EntityMapping, to statement: Connection.Statement, from index: inout Int32) throws {
        try statement.bind(.integer(record.pointee.id.key), at: index)
        index += 1
        for (ordinal, type) in entity.attributeTypes.enumerated() {
            try statement.bind(dialect.encode(record.pointee.attributes[ordinal], as: type), at: index)
            index += 1
        }
        for ordinal in entity.foreignKeyOrdinals {
            try statement.bind(record.pointee.relationships[ordinal].first.map { .integer($0.key) } ?? .null, at: index)
            index += 1
        }
    }

    /// ``bindRow(at:of:to:from:)``'s values, appended to `values`. (The two are spelled out
    /// apart on purpose: one loop handing each value to a closure cost SQLite's W1 4.5% more
    /// instructions.)
    private func appendRow(at record: UnsafePointer<Record>, of entity: SQLSchemaMapping.EntityMapping, to values: inout [SQLValue]) {
        values.append(.integer(record.pointee.id.key))
        for (ordinal, type) in entity.attributeTypes.enumerated() {
            values.append(dialect.encode(record.pointee.attributes[ordinal], as: type))
        }
        for ordinal in entity.foreignKeyOrdinals {
            values.append(record.pointee.relationships[ordinal].first.map { .integer($0.key) } ?? .null)
        }
    }

    private func updateRow(at update: UnsafePointer<RecordReplacement>) throws {
        let record = update.pointee.new
        let entry = try statements(record.id.entity)
        let entity = entry.entity
        var slots: [Int] = []
        slots.reserveCapacity(update.pointee.changedKeys.count)
        for key in update.pointee.changedKeys {
            if let slot = entity.updateSlots[key] { slots.append(slot) }
        }
        if slots.isEmpty { return }
        slots.sort()
        let statement: Connection.Statement
        if let prepared = entry.updates[slots] {
            statement = prepared
        } else {
            statement = try connection.statement(entity.updateSQL(slots: slots))
            // A long-lived writer keeps the combinations of changed columns it meets; a few
            // dozen cover any real app, and past that they are prepared anew.
            if entry.updates.count >= 64 { entry.updates.removeAll() }
            entry.updates[slots] = statement
        }
        statement.reset()
        try statement.bind(.integer(record.id.key), at: 1)
        let attributeCount = entity.attributeTypes.count
        for (i, slot) in slots.enumerated() {
            let value: SQLValue
            if slot < attributeCount {
                value = dialect.encode(record.attributes[slot], as: entity.attributeTypes[slot])
            } else {
                value = record.relationships[entity.foreignKeyOrdinals[slot - attributeCount]].first.map { .integer($0.key) } ?? .null
            }
            try statement.bind(value, at: Int32(i + 2))
        }
        do {
            try statement.run()
        } catch let error as StorageError {
            throw try explain(error, record: record, entity: entity)
        }
        guard connection.changes == 1 else { throw StorageError.recordNotFound(record.id) }
    }

    // MARK: To-many relationships

    private func writeToMany(at record: UnsafePointer<Record>, changedKeys: Set<String>?) throws {
        let entity = try statements(record.pointee.id.entity).entity
        guard entity.hasToMany else { return }
        for (ordinal, relationship) in entity.relationships.enumerated() where relationship.isToMany {
            if let changedKeys, !changedKeys.contains(relationship.name) { continue }
            let destinations = record.pointee.relationships[ordinal]
            switch relationship.storage {
            case .foreignKey, .inverseForeignKey(_, nil):
                continue
            case .inverseForeignKey(_, let position?):
                let statement = try connection.statement("UPDATE \(relationship.destinationTable.sqlIdentifier) SET \(position.sqlIdentifier) = \(dialect.placeholder(2)) WHERE \"_key\" = \(dialect.placeholder(1))")
                for (index, destination) in destinations.enumerated() {
                    try statement.execute([.integer(destination.key), .integer(Int64(index))])
                    try pendingPositions?.record(table: relationship.destinationTable, column: position, key: destination.key,
                                                 position: Int64(index), found: connection.changes > 0)
                }
            case .joinTable(let table):
                if changedKeys != nil {
                    try connection.statement("DELETE FROM \(table.sqlIdentifier) WHERE \"source\" = \(dialect.placeholder(1))").execute([.integer(record.pointee.id.key)])
                }
                let statement = try connection.statement("INSERT INTO \(table.sqlIdentifier) (\"source\", \"position\", \"destination\") VALUES (\(dialect.placeholder(1)), \(dialect.placeholder(2)), \(dialect.placeholder(3)))")
                for (index, destination) in destinations.enumerated() {
                    try statement.execute([.integer(record.pointee.id.key), .integer(Int64(index)), .integer(destination.key)])
                }
            }
        }
    }

    // MARK: Uniqueness

    /// Clears the constrained columns of updated rows first, so that values can move between
    /// records of one commit (a swap) without a false violation.
    private func releaseUniqueValues(of updates: [RecordReplacement]) throws {
        for update in updates {
            let entity = try statements(update.new.id.entity).entity
            guard !entity.uniqueAttributes.isEmpty else { continue }
            let constrained = entity.uniqueAttributes.intersection(update.changedKeys)
            guard !constrained.isEmpty else { continue }
            let columns = constrained.sorted().compactMap { mapping.schema.attributeOrdinal($0, in: entity.name).map { entity.attributeColumns[$0] } }
            let sql = "UPDATE \(entity.table.sqlIdentifier) SET \(columns.map { "\($0.sqlIdentifier) = NULL" }.joined(separator: ", ")) WHERE \"_key\" = \(dialect.placeholder(1))"
            try connection.statement(sql).execute([.integer(update.new.id.key)])
        }
    }

    /// Turns the database's constraint errors into the contract's errors.
    private func explain(_ error: StorageError, record: Record, entity: SQLSchemaMapping.EntityMapping) throws -> StorageError {
        switch connection.constraintViolation(in: error) {
        case .primaryKey?:
            return RecordValidator.insertedTwice(record.id)
        case .unique(let name?)?:
            // The database named the index: no query (which an aborted transaction may not run).
            // PostgreSQL cuts names at 63 bytes.
            let index = mapping.indexes.first { $0.name == name || ($0.name.utf8.count > 63 && $0.name.utf8.prefix(63).elementsEqual(name.utf8)) }
            if let constraint = index?.uniqueConstraint {
                let values = constraint.attributes.map { key in
                    mapping.schema.attributeOrdinal(key, in: entity.name).map { record.attributes[$0] } ?? .null
                }
                return .uniqueConstraintViolation(entity: constraint.entity, attributes: constraint.attributes, values: values)
            }
            return error
        case .unique(nil)?:
            break
        case nil:
            return error
        }
        for (owner, attributes) in mapping.schema.uniqueConstraints(applyingTo: entity.name) {
            let ordinals = attributes.compactMap { mapping.schema.attributeOrdinal($0, in: entity.name) }
            let values = ordinals.map { record.attributes[$0] }
            guard ordinals.count == attributes.count, !values.contains(.null), let ownerMapping = mapping.entities[owner] else { continue }
            var parameters: [SQLValue] = [.integer(record.id.key)]
            var conditions = ["\"_key\" <> \(dialect.placeholder(1))"]
            for ordinal in ordinals {
                parameters.append(dialect.encode(record.attributes[ordinal], as: entity.attributeTypes[ordinal]))
                conditions.append(dialect.isSame(entity.attributeColumns[ordinal].sqlIdentifier, dialect.placeholder(parameters.count)))
            }
            if let filter = mapping.kindFilter(ownerMapping, alias: entity.table.sqlIdentifier, includesSubentities: true) { conditions.append(filter) }
            var clash: Int64 = 0
            try connection.statement("SELECT count(*) FROM \(entity.table.sqlIdentifier) WHERE \(conditions.joined(separator: " AND "))")
                .query(parameters) { clash = $0.int64(0) }
            if clash != 0 {
                return .uniqueConstraintViolation(entity: owner, attributes: attributes, values: values)
            }
        }
        return error
    }
}
