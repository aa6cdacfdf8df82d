import Foundation
import CoreStoreSQL
import CSQLite
import CoreStoreStorage

/// How a lightweight migration step changes the tables of a store in place with `ALTER TABLE`,
/// worked out before anything is changed.
///
/// The plan exists only when the result is exactly the table layout of the destination
/// schema's ``SQLSchemaMapping`` holding exactly the values a copy would write: the same
/// tables, the same relationship columns, and every destination attribute column fed by one
/// source column (kept, or renamed) or by one constant (a new column) for all the entities that
/// share it. Anything else — a column whose entities disagree on its source, one source column
/// feeding two columns, a column that changes its declared type — makes ``init(step:source:destination:)``
/// return `nil`, and the records are copied instead.
struct SQLiteAlterationPlan {
    /// A column value written to the rows of some entities.
    struct Fill {
        /// The column (by its destination name).
        let column: String
        /// The value, as stored.
        let value: SQLValue
        /// The entities whose rows get it; `nil` for every row of the table.
        let kinds: [String]?
    }

    /// A new column.
    struct Addition {
        /// The column name.
        let column: String
        /// Its declared type (``SQLiteValueCodec/columnDefinition(_:)``).
        let definition: String
        /// The value of every row of `kinds`, as stored.
        let value: SQLValue
        /// The entities whose rows read the column; `nil` for every row of the table.
        let kinds: [String]?
    }

    /// What happens to the attribute columns of one table, in the order it is done.
    struct TableChanges {
        /// The table.
        let table: String
        /// Source columns no destination attribute reads.
        var drops: [String] = []
        /// Source columns that keep their values under another name.
        var renames: [(from: String, to: String)] = []
        /// New columns.
        var additions: [Addition] = []
        /// Kept columns whose `NULL`s become a value (an optional attribute became non-optional).
        var nullReplacements: [Fill] = []
        /// Columns set to `NULL` in the rows *not* of ``Fill/kinds`` (entities that no longer
        /// read them), as a copy would leave them.
        var clears: [Fill] = []
        /// Source columns whose indexes must be rebuilt: dropped, renamed or filled.
        var touchedColumns: Set<String> = []
    }

    /// The changes of every entity table.
    let tables: [TableChanges]

    /// Where one destination column gets its values from.
    private enum ColumnSource {
        case column(String, nullReplacement: SQLValue?)
        case constant(SQLValue)

        func isIdentical(to other: ColumnSource) -> Bool {
            switch (self, other) {
            case (.column(let a, let x), .column(let b, let y)):
                guard a == b else { return false }
                if let x, let y { return x.isIdentical(to: y) }
                return x == nil && y == nil
            case (.constant(let x), .constant(let y)):
                return x.isIdentical(to: y)
            default:
                return false
            }
        }
    }

    /// The plan of `step` between the two mappings (both without a table prefix), or `nil` when
    /// the step cannot be done in place exactly.
    init?(step: LightweightMigrationStep, source: SQLSchemaMapping, destination: SQLSchemaMapping) {
        guard Set(source.tableOrder) == Set(destination.tableOrder), Set(source.joinTables) == Set(destination.joinTables) else { return nil }
        var tables: [TableChanges] = []
        for name in destination.tableOrder {
            guard let from = source.tables[name], let to = destination.tables[name],
                  let changes = Self.changes(of: to, from: from, step: step, source: source, destination: destination) else { return nil }
            tables.append(changes)
        }
        // `DROP COLUMN` needs SQLite 3.35, `RENAME COLUMN` 3.25; an older library copies instead.
        let version = Int(sqlite3_libversion_number())
        if tables.contains(where: { !$0.drops.isEmpty }), version < 3_035_000 { return nil }
        if tables.contains(where: { !$0.renames.isEmpty }), version < 3_025_000 { return nil }
        self.tables = tables
    }

    private static func changes(
        of to: SQLSchemaMapping.Table, from: SQLSchemaMapping.Table, step: LightweightMigrationStep,
        source: SQLSchemaMapping, destination: SQLSchemaMapping
    ) -> TableChanges? {
        let fromEntities = source.schema.entityAndDescendants(from.rootEntity).compactMap { source.schema.entity(named: $0) }
        let toEntities = destination.schema.entityAndDescendants(to.rootEntity).compactMap { destination.schema.entity(named: $0) }
        let concreteKinds = toEntities.filter { !$0.isAbstract }.map(\.name)
        guard Set(fromEntities.filter { !$0.isAbstract }.map(\.name)) == Set(concreteKinds) else { return nil }

        // The columns that are not attributes (foreign keys, positions) must not change at all.
        let fromAttributeColumns = Set(fromEntities.flatMap { source.entities[$0.name]?.attributeColumns ?? [] })
        let toAttributeColumns = Set(toEntities.flatMap { destination.entities[$0.name]?.attributeColumns ?? [] })
        let fromOthers = from.columns.filter { !fromAttributeColumns.contains($0.name) }.map { [$0.name, $0.definition] }
        let toOthers = to.columns.filter { !toAttributeColumns.contains($0.name) }.map { [$0.name, $0.definition] }
        guard Set(fromOthers) == Set(toOthers) else { return nil }
        let fromDefinitions = Dictionary(from.columns.map { ($0.name, $0.definition) }, uniquingKeysWith: { first, _ in first })

        // Who reads each source column.
        var formerReaders: [String: Set<String>] = [:]
        for entity in fromEntities where !entity.isAbstract {
            for column in source.entities[entity.name]?.attributeColumns ?? [] { formerReaders[column, default: []].insert(entity.name) }
        }

        // Where each destination column gets its values, agreed by every entity that reads it.
        var sources: [String: ColumnSource] = [:]
        var readers: [String: [String]] = [:]
        for entity in toEntities where !entity.isAbstract {
            guard let attributeSources = step.attributes[entity.name], attributeSources.count == entity.attributes.count,
                  let toMapping = destination.entities[entity.name], let fromMapping = source.entities[entity.name],
                  let fromEntity = source.schema.entity(named: entity.name) else { return nil }
            for (ordinal, attributeSource) in attributeSources.enumerated() {
                let column = toMapping.attributeColumns[ordinal]
                let attribute = entity.attributes[ordinal]
                let resolved: ColumnSource
                switch attributeSource {
                case .attribute(let name, let nullReplacement):
                    guard let sourceOrdinal = fromEntity.attributeOrdinal(name) else { return nil }
                    let sourceType = fromEntity.attributes[sourceOrdinal].type
                    guard sourceType == attribute.type || (sourceType == .url && attribute.type == .string) else { return nil }
                    let sourceColumn = fromMapping.attributeColumns[sourceOrdinal]
                    guard fromDefinitions[sourceColumn] == SQLiteValueCodec.columnDefinition(attribute.type) else { return nil }
                    let replacement = nullReplacement.map { SQLiteValueCodec.encode($0, as: attribute.type) }
                    resolved = .column(sourceColumn, nullReplacement: replacement == .null ? nil : replacement)
                case .constant(let value):
                    resolved = .constant(SQLiteValueCodec.encode(value, as: attribute.type))
                }
                if let agreed = sources[column] {
                    guard agreed.isIdentical(to: resolved) else { return nil }
                } else {
                    sources[column] = resolved
                }
                readers[column, default: []].append(entity.name)
            }
        }

        var changes = TableChanges(table: to.name)
        var fed: [String: String] = [:]
        for (column, definition) in to.columns where toAttributeColumns.contains(column) {
            let kinds = readers[column] ?? []
            let filter: [String]? = Set(kinds) == Set(concreteKinds) ? nil : kinds
            switch sources[column] ?? .constant(.null) {
            case .column(let sourceColumn, let nullReplacement):
                guard fed[sourceColumn] == nil else { return nil }
                fed[sourceColumn] = column
                if sourceColumn != column {
                    changes.renames.append((sourceColumn, column))
                    changes.touchedColumns.insert(sourceColumn)
                }
                if let nullReplacement {
                    changes.nullReplacements.append(Fill(column: column, value: nullReplacement, kinds: filter))
                    changes.touchedColumns.insert(sourceColumn)
                }
                if !(formerReaders[sourceColumn] ?? []).isSubset(of: Set(kinds)) {
                    changes.clears.append(Fill(column: column, value: .null, kinds: kinds))
                }
            case .constant(let value):
                changes.additions.append(Addition(column: column, definition: definition, value: value, kinds: filter))
                if value != .null, filter != nil {
                    changes.clears.append(Fill(column: column, value: .null, kinds: kinds))
                }
            }
        }
        changes.drops = from.columns.map(\.name).filter { fromAttributeColumns.contains($0) && fed[$0] == nil }
        changes.touchedColumns.formUnion(changes.drops)
        return changes
    }
}
