import CoreStoreStorage

extension KeyValueStorageReader {
    /// One page of an entity's records in key order: a range scan of the hierarchy's records
    /// from just after `key`, skipping other entities' records by the name their bytes begin
    /// with, without decoding them. Reads no more than the page and the records it skips.
    func records(of entity: String, after key: Int64, limit: Int) throws -> [Record] {
        let names = layout.entityNames
        guard let wanted = names.names.firstIndex(of: entity) else { throw StorageError.unknownEntity(entity) }
        guard limit > 0, key < .max else { return [] }
        let prefix = layout.recordPrefix(ofHierarchyOf: entity)
        // Nothing sorts between a key and the same key followed by a zero byte.
        let lower = layout.recordKey(entity: entity, key: key) + [0x00]
        let candidate = ScanCandidate(names: names, checksChecksums: !snapshot.verifiesStoredBytes)
        var page: [Record] = []
        try snapshot.scan(from: lower, to: TupleEncoder.elementsEnd(prefix), reverse: false) { _, value in
            let record = try value.withUnsafeBytes { bytes -> Record? in
                guard try candidate.reset(bytes) == wanted else { return nil }
                return try candidate.takeRecord()
            }
            if let record { page.append(record) }
            return page.count < limit
        }
        return page
    }
}
