import CoreStoreStorage

/// The running totals of every integer and double attribute of each entity — how many records
/// hold a value, and the exact sum of those values — kept by every commit under the
/// generation's `totals` metadata key (format version 4). An unfiltered, ungrouped `count`,
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
/// without reading anything else. A generation without the key (a store of an earlier format,
/// a new store or a migration's new generation before their first commit) has its totals
/// counted by its next commit, from every record, in that commit's engine write.
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

    /// Applies what a commit wrote: inserts added, deletes removed, updates replaced. Returns
    /// whether any record of an entity with totalled attributes was among them.
    mutating func apply(_ changes: MergedChanges) -> Bool {
        var lastEntity: (name: String, index: Int)?
        let before = totals
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
        return totals != before
    }

    // MARK: Stored form

    /// The stored value: the number of entries, then for each entity with a non-empty total
    /// its name, how many of its totals follow, and each as `(ordinal, count, unrepresented,
    /// sum high, sum low, magnitude high, magnitude low)`, the 128-bit numbers as two 64-bit
    /// halves.
    func encoded() -> [UInt8] {
        let stored = ranges.map { range in range.filter { !totals[$0].isEmpty } }
        var bytes: [UInt8] = []
        TupleEncoder.encodeInt(Int64(stored.lazy.filter { !$0.isEmpty }.count), into: &bytes)
        for (entity, positions) in stored.enumerated() where !positions.isEmpty {
            TupleEncoder.encodeString(names[entity], into: &bytes)
            TupleEncoder.encodeInt(Int64(positions.count), into: &bytes)
            for i in positions {
                let total = totals[i]
                TupleEncoder.encodeInt(Int64(totalled[i].ordinal), into: &bytes)
                TupleEncoder.encodeInt(total.count, into: &bytes)
                TupleEncoder.encodeInt(total.unrepresented, into: &bytes)
                for part in [total.sum, total.magnitude] {
                    TupleEncoder.encodeInt(Int64(truncatingIfNeeded: part >> 64), into: &bytes)
                    TupleEncoder.encodeInt(Int64(bitPattern: UInt64(truncatingIfNeeded: part)), into: &bytes)
                }
            }
        }
        return bytes
    }

    /// The 128-bit number of two halves: the high one, and the bit pattern of the low one.
    private static func joined(_ high: Int64, _ low: Int64) -> Int128 {
        Int128(high) << 64 | Int128(UInt64(bitPattern: low))
    }

    /// The totals `reader` holds for `layout`'s generation; `nil` when it holds none. Throws
    /// when they are damaged or do not fit the schema.
    static func stored(_ reader: any KeyValueReader, layout: KeyValueLayout) throws -> AttributeTotals? {
        guard let bytes = try reader.get(layout.totalsKey) else { return nil }
        return try decode(bytes, schema: layout.schema)
    }

    /// The totals in a stored value (see ``encoded()``) for the entities of `schema`.
    static func decode(_ bytes: [UInt8], schema: StoreSchema) throws -> AttributeTotals {
        func damaged(_ reason: String) -> StorageError { KeyValueFormatError.damaged("attribute totals", reason) }
        let values: [Value]
        do { values = try TupleDecoder.decode(bytes) } catch { throw damaged("\(error)") }
        var position = 0
        func nextInt() throws -> Int64 {
            guard position < values.count, case .int(let i) = values[position] else { throw damaged("value \(position) is not an integer") }
            position += 1
            return i
        }
        var result = AttributeTotals(schema: schema)
        let entries = try nextInt()
        guard entries >= 0 else { throw damaged("a negative number of entities") }
        for _ in 0..<entries {
            guard position < values.count, case .string(let name) = values[position] else { throw damaged("value \(position) is not an entity name") }
            position += 1
            guard let entity = result.entityIndex(name) else { throw damaged("the schema has no entity '\(name)'") }
            let count = try nextInt()
            guard count >= 0 else { throw damaged("'\(name)' has a negative number of totals") }
            for _ in 0..<count {
                let ordinal = Int(try nextInt())
                guard let position = result.position(entityIndex: entity, ordinal: ordinal) else {
                    throw damaged("'\(name)' has no integer or double attribute at \(ordinal)")
                }
                let total = Total(count: try nextInt(), unrepresented: try nextInt(),
                                  sum: joined(try nextInt(), try nextInt()), magnitude: joined(try nextInt(), try nextInt()))
                guard total.count >= total.unrepresented, total.unrepresented >= 0, total.magnitude >= 0,
                      total.magnitude >= total.sum, total.magnitude >= -total.sum else {
                    throw damaged("the total of '\(name)' attribute \(ordinal) is not a possible one")
                }
                result.totals[position] = total
            }
        }
        guard position == values.count else { throw damaged("\(values.count - position) values after the last total") }
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
