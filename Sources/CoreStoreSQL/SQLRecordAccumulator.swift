import Foundation
import CoreStoreStorage

/// Builds records from the rows of a whole-row select (see
/// ``SQLRecordLoader/columns(of:alias:)``) as they are stepped, then completes them with
/// ``finish(with:)``.
///
/// Values are decoded straight from the statement, without an intermediate row. Not generic
/// (unlike the loader, which depends on the connection): the closure that appends each row of
/// a generic reader then needs no type metadata lookup per row.
package struct SQLRecordAccumulator {
    let mapping: SQLSchemaMapping
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
    /// Keys whose values the asker holds (``FetchRequest/knownRecords``): their rows become
    /// records without values, and their to-many relationships are not loaded.
    private let known: KnownRecordKeys
    /// Whether ``known`` holds any key.
    private let skipsKnown: Bool
    /// How many of the rows appended were of ``known`` keys (made records without values).
    package private(set) var heldRows = 0
    /// The entity whose attribute reads ``reads`` holds (the last one appended).
    private var readsEntity: SQLSchemaMapping.EntityMapping?
    /// Where each attribute of ``readsEntity`` is read: kept here, in the accumulator, so that
    /// a row reads them without retaining the entity's arrays.
    private var reads: [AttributeRead] = []

    /// The row column an attribute is read from, and its type.
    private struct AttributeRead {
        let column: Int32
        let type: AttributeType
    }

    /// An accumulator for rows of any entity of `mapping`.
    package init(mapping: SQLSchemaMapping) {
        self.mapping = mapping
        self.soleEntity = nil
        self.known = KnownRecordKeys()
        self.skipsKnown = false
    }

    /// An accumulator for rows that a read of `entity` returns, answering the rows of `known`
    /// keys by identifier alone.
    package init(mapping: SQLSchemaMapping, reading entity: SQLSchemaMapping.EntityMapping, skipping known: KnownRecordKeys = KnownRecordKeys()) {
        self.mapping = mapping
        self.soleEntity = entity.isAloneInTable ? entity : nil
        self.known = known
        self.skipsKnown = !known.isEmpty
    }

    /// Adds the record of the statement's current row.
    package mutating func append(_ statement: any SQLRow) throws {
        // A result held whole says its size: the records are then made in one allocation.
        if records.capacity == 0, let rows = statement.rowsInResult { records.reserveCapacity(rows) }
        let entity: SQLSchemaMapping.EntityMapping
        if let soleEntity {
            entity = soleEntity
        } else if let last = lastEntity, statement.textEquals(1, last.name) {
            entity = last
        } else {
            entity = try mapping.entity(statement.text(1) ?? "")
            lastEntity = entity
        }
        let key = statement.int64(0)
        if skipsKnown && known.contains(key) {
            heldRows += 1
            records.append(Record(identifierOnly: RecordID(entity: entity.name, key: key)))
            return
        }
        if readsEntity !== entity { try prepareReads(of: entity) }
        var attributes: [Value] = []
        attributes.reserveCapacity(reads.count)
        for i in 0..<reads.count {
            attributes.append(try statement.value(reads[i].column, as: reads[i].type))
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
        records.append(Record(id: RecordID(entity: entity.name, key: key), attributes: attributes, relationships: relationships))
    }

    /// Makes ``reads`` those of `entity`; throws when an attribute has no column (and then
    /// holds no entity's reads).
    private mutating func prepareReads(of entity: SQLSchemaMapping.EntityMapping) throws {
        readsEntity = nil
        reads.removeAll(keepingCapacity: true)
        for (ordinal, type) in entity.attributeTypes.enumerated() {
            let index = entity.attributeColumnIndexes[ordinal]
            guard index >= 0 else { throw StorageError.unknownKey(key: entity.attributeColumns[ordinal], entity: entity.name) }
            reads.append(AttributeRead(column: Int32(index + 2), type: type))
        }
        readsEntity = entity
    }

    /// The records, in row order, with the entities of polymorphic to-one destinations and
    /// every to-many relationship filled in (further queries through `loader`'s connection).
    package consuming func finish<Connection: SQLConnection>(with loader: SQLRecordLoader<Connection>) throws -> [Record] {
        var entities: [Int64: String] = [:]
        for (destinationTable, keys) in polymorphic {
            try loader.lookUpEntities(Array(keys), table: destinationTable, into: &entities)
        }
        if !entities.isEmpty {
            for r in records.indices {
                let entity = try mapping.entity(records[r].id.entity)
                // A known record, answered without values (see `known`).
                guard records[r].relationships.count == entity.relationships.count else { continue }
                for (ordinal, relationship) in entity.relationships.enumerated() where !relationship.isToMany && relationship.destinationIsPolymorphic {
                    records[r].relationships[ordinal] = records[r].relationships[ordinal].map { RecordID(entity: entities[$0.key] ?? $0.entity, key: $0.key) }
                }
            }
        }
        try loader.loadToMany(&records)
        return records
    }
}
