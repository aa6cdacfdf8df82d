import CoreStoreStorage

extension KeyValueStorage: StorageIntegrityChecking {
    /// Checks the indexes against the records in one engine snapshot, in bounded memory: every
    /// record has each entry its indexes need, with an intact checksum; every index entry has
    /// an intact checksum and belongs to a record that exists and gives exactly that entry.
    /// Records that do not decode are reported (their checksum, their shape) and skipped. The
    /// stored record count of each hierarchy, where the generation keeps them, must be the
    /// number of records found, and the stored attribute totals the totals of those records. Returns the number of records and index entries looked at.
    public func checkIntegrity(_ problem: (String) -> Void) throws -> Int {
        let layout = try lifecycle.open()
        return try engine.read { snapshot in
            var looked = 0
            // Every record's checksum is checked here, whatever the engine verifies itself.
            let candidate = ScanCandidate(names: layout.entityNames, checksChecksums: true)
            var storedCounts: RecordCounts?
            do {
                storedCounts = try RecordCounts.stored(snapshot, layout: layout)
            } catch {
                problem("the record counts cannot be read: \(error)")
            }
            var storedTotals: AttributeTotals?
            do {
                storedTotals = try AttributeTotals.stored(snapshot, layout: layout)
            } catch {
                problem("the attribute totals cannot be read: \(error)")
            }
            var foundTotals = AttributeTotals(schema: layout.schema)
            var lastEntity: (name: String, index: Int)?
            for root in layout.schema.entities where root.parentName == nil {
                let prefix = layout.recordPrefix(ofHierarchyOf: root.name)
                var found: Int64 = 0
                try snapshot.scan(from: prefix, to: TupleEncoder.elementsEnd(prefix), reverse: false) { key, value in
                    looked += 1
                    found += 1
                    let record: Record
                    do {
                        record = try value.withUnsafeBytes { bytes in
                            guard try candidate.reset(bytes) != nil else { throw KeyValueFormatError.damaged("record", "it names an entity the schema lacks") }
                            return try candidate.takeRecord()
                        }
                    } catch {
                        problem("\(root.name) hierarchy: the record under key \(Self.hex(key)) cannot be read: \(error)")
                        return true
                    }
                    withUnsafePointer(to: record) { foundTotals.change(by: $0, adding: true, lastEntity: &lastEntity) }
                    for plan in layout.entryPlans(maintainedBy: record.id.entity) {
                        let entry = plan.entry(of: record)
                        guard let stored = try snapshot.get(entry) else {
                            problem("\(record.id): has no entry in the index \(plan.index.name)")
                            continue
                        }
                        do {
                            try IndexEntryChecksum.check(entry: entry, value: stored)
                        } catch {
                            problem("\(record.id): its entry in the index \(plan.index.name) is damaged: \(error)")
                        }
                    }
                    return true
                }
                if let storedCounts, storedCounts.count(ofHierarchyOf: root.name) != found {
                    problem("\(root.name) hierarchy: its stored record count is \(storedCounts.count(ofHierarchyOf: root.name)), but it holds \(found) records")
                }
            }
            if let storedTotals {
                for entity in layout.schema.entities.indices {
                    for ordinal in foundTotals.totalledOrdinals(ofEntityAt: entity)
                    where storedTotals.total(entityIndex: entity, ordinal: ordinal) != foundTotals.total(entityIndex: entity, ordinal: ordinal) {
                        let description = layout.schema.entities[entity]
                        problem("\(description.name): the stored total of its attribute \(description.attributes[ordinal].name) does not match its records")
                    }
                }
            }
            for index in layout.indexes {
                let prefix = layout.prefix(of: index)
                try snapshot.scanPairs(from: prefix, to: TupleEncoder.elementsEnd(prefix)) { entryBytes, value in
                    looked += 1
                    let entry = Array(entryBytes)
                    do {
                        try IndexEntryChecksum.check(entry: entryBytes, value: value)
                        let key = try KeyValueLayout.recordKey(ofEntry: entryBytes)
                        guard let record = try layout.record(RecordID(entity: index.scope, key: key), in: snapshot) else {
                            problem("index \(index.name): has an entry for \(index.scope)#\(key), which does not exist")
                            return true
                        }
                        let plan = layout.entryPlans(maintainedBy: record.id.entity).first { $0.index == index }
                        if plan?.entry(of: record) != entry {
                            problem("index \(index.name): its entry for \(record.id) does not match the record's values")
                        }
                    } catch {
                        problem("index \(index.name): the entry \(Self.hex(entry)) is damaged: \(error)")
                    }
                    return true
                }
            }
            return looked
        }
    }

    /// `bytes` in hexadecimal, for naming a key in a report.
    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }
}
