/// Checks a store through the contract alone, so it works on every backend: every record of
/// every concrete entity reads back and has its entity's shape; every relationship points to
/// records that exist, of the destination entity, and whose inverse points back; to-one
/// relationships hold at most one destination; unique constraints hold; and the count a store
/// reports for each entity is the number of records it hands out. Engine structures beyond
/// that are a store's own check (``StorageIntegrityChecking``).
///
/// Reads one snapshot, a page of records at a time (``StorageReader/records(of:after:limit:)``);
/// memory grows only with the values of unique constraints.
public struct StoreIntegrityCheck {
    /// What a check looked at.
    public struct Summary: Sendable, Hashable {
        /// Records read, by concrete entity.
        public var objects: [String: Int] = [:]
        /// Relationship destinations followed.
        public var destinations = 0
        /// Problems reported.
        public var problems = 0
    }

    /// The schema the store was opened with.
    public let schema: StoreSchema
    /// Records read at a time.
    public var pageSize: Int

    /// A check of stores opened with `schema`.
    public init(schema: StoreSchema, pageSize: Int = 1_000) {
        self.schema = schema
        self.pageSize = max(1, pageSize)
    }

    /// Checks the open `store`, reporting each problem as one line to `problem` and the number
    /// of records read so far to `progress`. Throws only when the store cannot be read at all.
    public func run(on store: any StorageInterface, problem: (String) -> Void, progress: (Int) -> Void = { _ in }) throws -> Summary {
        var summary = Summary()
        var problems = 0
        func report(_ message: String) {
            problems += 1
            problem(message)
        }
        try store.read { reader in
            var uniques = UniqueValues()
            var read = 0
            for entity in schema.entities where !entity.isAbstract {
                var count = 0
                var after = Int64.min
                do {
                    try reader.forEachPage(of: entity.name, pageSize: pageSize) { page in
                        var wellFormed: [Record] = []
                        for record in page {
                            guard record.id.entity == entity.name else {
                                report("\(record.id): handed out among the objects of \(entity.name)")
                                continue
                            }
                            do {
                                try RecordValidator(schema: schema).validateShape(record)
                            } catch {
                                report("\(record.id): \(error)")
                                continue
                            }
                            wellFormed.append(record)
                            for (owner, attributes) in schema.uniqueConstraints(applyingTo: entity.name) {
                                if let other = uniques.insert(record, owner: owner, attributes: attributes, schema: schema) {
                                    report("\(record.id): breaks the unique constraint \(owner)(\(attributes.joined(separator: ", "))) with \(other)")
                                }
                            }
                        }
                        summary.destinations += try checkRelationships(of: wellFormed, entity: entity, reader: reader, report: report)
                        count += page.count
                        read += page.count
                        progress(read)
                        after = page.last?.id.key ?? after
                    }
                } catch {
                    report("\(entity.name): the objects after key \(after) cannot be read or followed: \(error)")
                }
                summary.objects[entity.name] = count
                let counted = try reader.count(FetchRequest(entity: entity.name, includesSubentities: false))
                if counted != count {
                    report("\(entity.name): the store counts \(counted) objects but hands out \(count)")
                }
            }
        }
        summary.problems = problems
        return summary
    }

    /// Follows every relationship of `records` (one look-up for the page) and reports
    /// destinations that are missing, of another entity, or do not point back through the
    /// inverse; returns the number of destinations followed.
    private func checkRelationships(of records: [Record], entity: EntityDescription, reader: any StorageReader, report: (String) -> Void) throws -> Int {
        guard !entity.relationships.isEmpty else { return 0 }
        var wanted: [RecordID] = []
        var seen: Set<Int64> = []
        for record in records {
            for (relationship, destinations) in zip(entity.relationships, record.relationships) {
                for destination in destinations where seen.insert(destination.key).inserted {
                    wanted.append(RecordID(entity: relationship.destinationEntity, key: destination.key))
                }
            }
        }
        var found: [Int64: Record] = [:]
        for (id, record) in zip(wanted, try reader.records(wanted)) {
            if let record { found[id.key] = record }
        }
        var followed = 0
        for record in records {
            for (relationship, destinations) in zip(entity.relationships, record.relationships) {
                let name = "\(record.id).\(relationship.name)"
                if relationship.kind == .toOne, destinations.count > 1 {
                    report("\(name): a to-one relationship holds \(destinations.count) destinations")
                }
                if relationship.kind.isToMany, Set(destinations.map(\.key)).count != destinations.count {
                    report("\(name): holds a destination more than once")
                }
                for destination in destinations {
                    followed += 1
                    guard let target = found[destination.key], schema.entity(target.id.entity, isKindOf: relationship.destinationEntity) else {
                        report("\(name): points to \(relationship.destinationEntity)#\(destination.key), which does not exist")
                        continue
                    }
                    guard let inverse = relationship.inverseName else { continue }
                    guard let ordinal = schema.relationshipOrdinal(inverse, in: target.id.entity), ordinal < target.relationships.count else {
                        report("\(name): its destination \(target.id) has no relationship '\(inverse)'")
                        continue
                    }
                    if !target.relationships[ordinal].contains(where: { $0.key == record.id.key }) {
                        report("\(name): points to \(target.id), whose inverse '\(inverse)' does not point back")
                    }
                }
            }
        }
        return followed
    }
}

/// The values seen for each unique constraint, with the record that holds them.
private struct UniqueValues {
    private var seen: [String: [[Value]: RecordID]] = [:]

    /// Records the values `record` holds for the constraint; returns the record that already
    /// held them, if any. A `nil` value never collides.
    mutating func insert(_ record: Record, owner: String, attributes: [String], schema: StoreSchema) -> RecordID? {
        var values: [Value] = []
        for attribute in attributes {
            guard let ordinal = schema.attributeOrdinal(attribute, in: record.id.entity), ordinal < record.attributes.count else { return nil }
            let value = record.attributes[ordinal]
            if value.isNull { return nil }
            values.append(value)
        }
        let key = owner + "|" + attributes.joined(separator: ",")
        if let other = seen[key]?[values] { return other }
        seen[key, default: [:]][values] = record.id
        return nil
    }
}
