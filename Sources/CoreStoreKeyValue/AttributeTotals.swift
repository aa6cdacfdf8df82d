import CoreStoreStorage

/// The running totals of every integer and double attribute of each entity — how many records
/// hold a value, and the exact sum of those values — kept by every commit after the record
/// counts in the value of the generation's `sequence` counter (format version 4), which every
/// commit writes anyway: no other key. An unfiltered, ungrouped `count`,
/// `sum` or `average` of such an attribute is then read from here instead of scanned (see
/// ``AttributeTotalsAnswer``).
///
/// Why a total answers exactly what the reference evaluator computes (``AggregateAccumulator``
/// adding the values one by one in record-key order):
/// - Integers are kept as their exact sum, and used only while the sum of their magnitudes fits
///   in 64 bits: then no partial sum, in any order, leaves the 64-bit range, which is the
///   evaluator's exact case.
/// - A double is kept exactly as an integer count of 2⁻¹⁶ when it is finite, below 2³⁷ in
///   magnitude and a multiple of 2⁻¹⁶ (whole numbers, halves, 1/1024ths…); any other double
///   (`0.1`, NaN, infinities) is counted as *unrepresented*. While none is, and the magnitudes
///   add up to less than 2⁵³ units, every partial sum in any order is a multiple of 2⁻¹⁶ that a
///   double holds exactly: the key-ordered running total never rounds, so it equals the exact
///   sum (and starts at `0.0`, so a zero total is `+0.0` in both).
/// Where a condition fails, the answer comes from a scan, as before.
///
/// Records are added with `+1` and removed with `-1`, so deletes and updates keep the totals
/// without reading anything else. A generation without them (a store of an earlier format, or
/// a new store before its first commit) has its totals counted by its next commit, from every
/// record, in that commit's engine write. A migration keeps the totals of what it writes and
/// stores them with its new generation.
struct AttributeTotals: Equatable, Sendable {
    /// One attribute's total over one entity's records.
    struct Total: Equatable, Sendable {
        /// The records whose value is not `nil`.
        var count: Int64 = 0
        /// Of those, the values ``sum`` does not hold (see the type's description).
        var unrepresented: Int64 = 0
        /// The exact sum of the other values: integers as they are, doubles in units of 2⁻¹⁶.
        var sum: Int128 = 0
        /// The exact sum of their magnitudes, in the same units.
        var magnitude: Int128 = 0

        /// Whether it holds nothing (then it is not stored).
        var isEmpty: Bool { count == 0 && unrepresented == 0 && sum == 0 && magnitude == 0 }

        /// Adds (`adding`) or removes one record's `value` of an attribute that holds doubles
        /// (`isDouble`) or integers.
        mutating func change(by value: Value, isDouble: Bool, adding: Bool) {
            let units: Int64?
            switch value {
            case .null: return
            case .int(let i) where !isDouble: units = i
            case .double(let d) where isDouble: units = Self.units(of: d)
            default: units = nil
            }
            let step: Int64 = adding ? 1 : -1
            count += step
            guard let units else {
                unrepresented += step
                return
            }
            if adding {
                sum += Int128(units)
                magnitude += Int128(units.magnitude)
            } else {
                sum -= Int128(units)
                magnitude -= Int128(units.magnitude)
            }
        }

        /// `d` as a whole number of 2⁻¹⁶, when it is finite, a multiple of 2⁻¹⁶ and below 2³⁷
        /// in magnitude (so the result is below 2⁵³); `nil` otherwise.
        static func units(of d: Double) -> Int64? {
            guard d.isFinite, d.magnitude < 0x1p37 else { return nil }
            let scaled = d * 0x1p16 // exact: a power of two, far from overflowing
            // Below 2⁵³ in magnitude, so the conversion cannot trap; equal back only when whole.
            let units = Int64(scaled)
            return Double(units) == scaled ? units : nil
        }

        /// The totals of two disjoint sets of records together.
        static func + (a: Total, b: Total) -> Total {
            Total(count: a.count + b.count, unrepresented: a.unrepresented + b.unrepresented,
                  sum: a.sum + b.sum, magnitude: a.magnitude + b.magnitude)
        }

        /// The exact integer sum as the evaluator's 64-bit result, when no partial sum in any
        /// order leaves the 64-bit range; `nil` otherwise.
        var exactIntegerSum: Int64? {
            guard unrepresented == 0, magnitude <= Int128(Int64.max) else { return nil }
            return Int64(sum)
        }

        /// The double sum the evaluator's key-ordered running total reaches, when it cannot
        /// have rounded; `nil` otherwise.
        var exactDoubleSum: Double? {
            guard unrepresented == 0, magnitude < Int128(1) << 53 else { return nil }
            return Double(Int64(sum)) * 0x1p-16
        }
    }

    /// One totalled attribute of an entity: its ordinal and whether it holds doubles.
    struct Totalled: Equatable, Sendable {
        let ordinal: Int
        let isDouble: Bool
    }

    /// The totalled attributes (integer and double ones) of every entity, entity after entity
    /// in schema order; ``totals`` holds their totals at the same positions.
    private let totalled: [Totalled]
    /// Where each entity's attributes are in ``totalled`` (and their totals in ``totals``).
    private let ranges: [Range<Int>]
    /// The entity names, in schema order.
    private let names: [String]
    /// The totals, one per element of ``totalled``. One flat array: a commit that changes
    /// totals copies it once, not once per entity.
    private(set) var totals: [Total]

    /// Empty totals for the entities of `schema`.
    init(schema: StoreSchema) {
        names = schema.entities.map(\.name)
        var totalled: [Totalled] = []
        ranges = schema.entities.map { entity in
            let start = totalled.count
            for (ordinal, attribute) in entity.attributes.enumerated() {
                switch attribute.type {
                case .integer: totalled.append(Totalled(ordinal: ordinal, isDouble: false))
                case .double: totalled.append(Totalled(ordinal: ordinal, isDouble: true))
                default: break
                }
            }
            return start..<totalled.count
        }
        self.totalled = totalled
        totals = Array(repeating: Total(), count: totalled.count)
    }

    static func == (a: AttributeTotals, b: AttributeTotals) -> Bool {
        a.names == b.names && a.totalled == b.totalled && a.totals == b.totals
    }

    /// The index of `entity` in schema order, `nil` for a name the schema lacks.
    func entityIndex(_ entity: String) -> Int? {
        names.firstIndex(of: entity)
    }

    /// The ordinals of the totalled attributes of the entity at `entityIndex`.
    func totalledOrdinals(ofEntityAt entityIndex: Int) -> [Int] {
        totalled[ranges[entityIndex]].map(\.ordinal)
    }

    /// Where the total of the attribute at `ordinal` of the entity at `entityIndex` is in
    /// ``totals``; `nil` when that attribute is not totalled.
    private func position(entityIndex: Int, ordinal: Int) -> Int? {
        ranges[entityIndex].first { totalled[$0].ordinal == ordinal }
    }

    /// One attribute's total over the records of the entity at `entityIndex`; empty for an
    /// attribute that is not totalled.
    func total(entityIndex: Int, ordinal: Int) -> Total {
        position(entityIndex: entityIndex, ordinal: ordinal).map { totals[$0] } ?? Total()
    }

    // MARK: Changes

    /// Adds (`adding`) or removes one record; a record of an entity the schema lacks changes
    /// nothing (the merge refuses those before a commit writes anything). `lastEntity` keeps
    /// the entity found last, which the next record most likely has too.
    mutating func change(by record: UnsafePointer<Record>, adding: Bool, lastEntity: inout (name: String, index: Int)?) {
        let entity: Int
        if let last = lastEntity, last.name == record.pointee.id.entity {
            entity = last.index
        } else {
            guard let found = entityIndex(record.pointee.id.entity) else { return }
            entity = found
            lastEntity = (record.pointee.id.entity, found)
        }
        let range = ranges[entity]
        if range.isEmpty { return }
        // Read and changed in place: no copy of a value, no check of each array per attribute.
        record.pointee.attributes.withUnsafeBufferPointer { values in
            totalled.withUnsafeBufferPointer { totalled in
                totals.withUnsafeMutableBufferPointer { totals in
                    for i in range where totalled[i].ordinal < values.count {
                        totals[i].change(by: values[totalled[i].ordinal], isDouble: totalled[i].isDouble, adding: adding)
                    }
                }
            }
        }
    }

    /// Applies what a commit wrote: inserts added, deletes removed, updates replaced.
    mutating func apply(_ changes: MergedChanges) {
        var lastEntity: (name: String, index: Int)?
        changes.inserts.withUnsafeBufferPointer { records in
            for i in records.indices { change(by: records.baseAddress.unsafelyUnwrapped + i, adding: true, lastEntity: &lastEntity) }
        }
        changes.deletes.withUnsafeBufferPointer { records in
            for i in records.indices { change(by: records.baseAddress.unsafelyUnwrapped + i, adding: false, lastEntity: &lastEntity) }
        }
        changes.updates.withUnsafeBufferPointer { updates in
            for i in updates.indices {
                KeyValueCommit.withVersions(of: updates.baseAddress.unsafelyUnwrapped + i) { old, new in
                    change(by: old, adding: false, lastEntity: &lastEntity)
                    change(by: new, adding: true, lastEntity: &lastEntity)
                }
            }
        }
    }

    // MARK: Stored form

    /// The stored value, in little-endian 64-bit words: the number of entities that follow,
    /// then for each entity with a non-empty total the byte count of its name, the name's
    /// UTF-8 bytes, the number of its totals and each as seven words — the attribute ordinal,
    /// ``Total/count``, ``Total/unrepresented``, and ``Total/sum`` and ``Total/magnitude`` as
    /// their high and low halves. Plain words, not a tuple: every commit writes it.
    func encoded() -> [UInt8] {
        // Measured first, then written in place: one allocation, no append per word.
        var size = 8
        for (entity, range) in ranges.enumerated() {
            let stored = range.reduce(0) { $0 + (totals[$1].isEmpty ? 0 : 1) }
            if stored > 0 { size += 16 + names[entity].utf8.count + stored * 56 }
        }
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes { raw in
            var offset = 8
            func put(_ word: Int64) {
                raw.storeBytes(of: word.littleEndian, toByteOffset: offset, as: Int64.self)
                offset += 8
            }
            func put(halvesOf n: Int128) {
                put(Int64(truncatingIfNeeded: n >> 64))
                put(Int64(truncatingIfNeeded: n))
            }
            var entities: Int64 = 0
            for (entity, range) in ranges.enumerated() {
                let stored = range.reduce(0) { $0 + (totals[$1].isEmpty ? 0 : 1) }
                if stored == 0 { continue }
                entities += 1
                let name = names[entity].utf8
                put(Int64(name.count))
                for byte in name {
                    raw[offset] = byte
                    offset += 1
                }
                put(Int64(stored))
                for i in range where !totals[i].isEmpty {
                    put(Int64(totalled[i].ordinal))
                    put(totals[i].count)
                    put(totals[i].unrepresented)
                    put(halvesOf: totals[i].sum)
                    put(halvesOf: totals[i].magnitude)
                }
            }
            raw.storeBytes(of: entities.littleEndian, toByteOffset: 0, as: Int64.self)
        }
        return bytes
    }

    /// The totals `reader` holds for `layout`'s generation; `nil` when it holds none. Throws
    /// when they are damaged or do not fit the schema.
    static func stored(_ reader: any KeyValueReader, layout: KeyValueLayout) throws -> AttributeTotals? {
        guard let bytes = try reader.get(layout.sequenceCounterKey) else { return nil }
        let totals = try RecordCounts.parts(ofCounterValue: bytes).rest
        return totals.isEmpty ? nil : try decode(Array(totals), schema: layout.schema)
    }

    /// The totals in a stored value (see ``encoded()``) for the entities of `schema`. Throws
    /// when the bytes end early, name an entity or attribute the schema does not total, hold
    /// a total no records can have, or go on after the last total.
    static func decode(_ bytes: [UInt8], schema: StoreSchema) throws -> AttributeTotals {
        func damaged(_ reason: String) -> StorageError { KeyValueFormatError.damaged("attribute totals", reason) }
        var position = 0
        func word() throws -> Int64 {
            guard bytes.count - position >= 8 else { throw damaged("they end at byte \(bytes.count), inside a word at \(position)") }
            var value: Int64 = 0
            withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes[position..<position + 8]) }
            position += 8
            return Int64(littleEndian: value)
        }
        func wide() throws -> Int128 {
            let high = try word()
            return Int128(high) << 64 | Int128(UInt64(bitPattern: try word()))
        }
        var result = AttributeTotals(schema: schema)
        let entities = try word()
        guard entities >= 0, entities <= Int64(schema.entities.count) else { throw damaged("\(entities) entities") }
        for _ in 0..<entities {
            let length = try word()
            guard length >= 0, length <= Int64(bytes.count - position),
                  let name = String(validating: bytes[position..<position + Int(length)], as: UTF8.self) else {
                throw damaged("no entity name at byte \(position)")
            }
            position += Int(length)
            guard let entity = result.entityIndex(name) else { throw damaged("the schema has no entity '\(name)'") }
            let count = try word()
            guard count >= 0, count <= Int64(result.ranges[entity].count) else { throw damaged("'\(name)' has \(count) totals") }
            for _ in 0..<count {
                let ordinal = try word()
                guard let slot = result.position(entityIndex: entity, ordinal: Int(truncatingIfNeeded: ordinal)) else {
                    throw damaged("'\(name)' has no integer or double attribute at \(ordinal)")
                }
                let total = Total(count: try word(), unrepresented: try word(), sum: try wide(), magnitude: try wide())
                // What records can add up to: no value's magnitude passes 2⁶³ units, and no store
                // holds 2⁶² records (bounds that also keep later commits' arithmetic from
                // overflowing on totals that were damaged into huge numbers).
                guard total.unrepresented >= 0, total.count >= total.unrepresented, total.count <= Int64(1) << 62,
                      total.magnitude >= 0, total.magnitude <= Int128(total.count - total.unrepresented) << 63,
                      total.magnitude >= total.sum, total.magnitude >= -total.sum else {
                    throw damaged("the total of '\(name)' attribute \(ordinal) is not a possible one")
                }
                result.totals[slot] = total
            }
        }
        guard position == bytes.count else { throw damaged("\(bytes.count - position) bytes after the last total") }
        return result
    }

    /// The totals of every record `reader` holds for `layout`'s generation, read record by
    /// record (bounded memory). Throws when a record does not decode.
    static func counted(_ reader: any KeyValueReader, layout: KeyValueLayout) throws -> AttributeTotals {
        var result = AttributeTotals(schema: layout.schema)
        let candidate = ScanCandidate(names: layout.entityNames, checksChecksums: !reader.verifiesStoredBytes)
        var lastEntity: (name: String, index: Int)?
        for root in layout.schema.entities where root.parentName == nil {
            let prefix = layout.recordPrefix(ofHierarchyOf: root.name)
            try reader.scanValues(from: prefix, to: TupleEncoder.elementsEnd(prefix)) { bytes in
                guard try candidate.reset(bytes) != nil else { return true }
                let record = try candidate.takeRecord()
                withUnsafePointer(to: record) { result.change(by: $0, adding: true, lastEntity: &lastEntity) }
                return true
            }
        }
        return result
    }
}
