import Foundation
import CoreStoreStorage

/// One index of one concrete entity, resolved once per layout: the entry prefix and the
/// ordinal each component reads, so building an entry costs no name lookups. A class, so that
/// iterating an entity's plans per written record retains one reference, not every field.
final class IndexEntryPlan: Sendable {
    /// Where one component's value comes from.
    enum Source: Sendable {
        /// The attribute at this ordinal (`nil`: the entity lacks it, the value is `nil`).
        case attribute(Int?)
        /// The first destination's key of the relationship at this ordinal.
        case relationship(Int?)
    }

    /// The index.
    let index: IndexDefinition
    /// The prefix of every entry of the index.
    let prefix: [UInt8]
    /// One source per component.
    let sources: [Source]

    /// The plan of `index` for records of `entity` in `generation`'s keys.
    init(index: IndexDefinition, entity: String, schema: StoreSchema, generation: KeyValueGeneration) {
        self.index = index
        prefix = KeyValueLayout.prefix(ofIndexNamed: index.name, in: generation)
        sources = index.components.map { component in
            switch component {
            case .attribute(let name): return .attribute(schema.attributeOrdinal(name, in: entity))
            case .relationship(let name): return .relationship(schema.relationshipOrdinal(name, in: entity))
            }
        }
    }

    /// The values `record` contributes, as ``KeyValueLayout/values(of:in:)`` computes them.
    func values(of record: Record) -> [Value] {
        sources.map { value(of: record, $0) }
    }

    /// The value one component takes from `record`.
    private func value(of record: Record, _ source: Source) -> Value {
        switch source {
        case .attribute(let ordinal):
            guard let ordinal, ordinal < record.attributes.count else { return .null }
            return record.attributes[ordinal]
        case .relationship(let ordinal):
            guard let ordinal, ordinal < record.relationships.count,
                  let destination = record.relationships[ordinal].first else { return .null }
            return .int(destination.key)
        }
    }

    /// Whether `old` and `new` give this index exactly the same values, so that their entries
    /// are equal and nothing of the index changes (the test an update runs first: most updates
    /// leave most indexes alone). Decimals are never taken as the same, since equal decimals may
    /// be encoded differently: their entries are compared instead.
    func holdsSameValues(_ old: Record, _ new: Record) -> Bool {
        for source in sources {
            switch (value(of: old, source), value(of: new, source)) {
            case (.decimal, _), (_, .decimal):
                return false
            case (.date(let a), .date(let b)):
                if a.timeIntervalSinceReferenceDate.bitPattern != b.timeIntervalSinceReferenceDate.bitPattern { return false }
            case let (a, b):
                if a != b { return false }
            }
        }
        return true
    }

    /// The entry of `record`, as ``KeyValueLayout/entry(of:in:)`` builds it (without the
    /// intermediate array of values: this runs for every index of every written record).
    func entry(of record: Record) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(prefix.count + 9 + sources.count * 12)
        entry(of: record, into: &key)
        return key
    }

    /// Replaces the bytes of `buffer` with the entry of `record`, keeping its capacity (a
    /// commit builds every entry in one buffer).
    func entry(of record: Record, into buffer: inout [UInt8]) {
        withUnsafePointer(to: record) { entry(ofRecordAt: $0, into: &buffer) }
    }

    /// ``entry(of:into:)`` for the record at `record`, read in place (see
    /// ``appendEntry(ofRecordAt:to:)``).
    func entry(ofRecordAt record: UnsafePointer<Record>, into buffer: inout [UInt8]) {
        buffer.removeAll(keepingCapacity: true)
        appendEntry(ofRecordAt: record, to: &buffer)
    }

    /// Appends the entry of `record` to `bytes`.
    func appendEntry(of record: Record, to bytes: inout [UInt8]) {
        withUnsafePointer(to: record) { appendEntry(ofRecordAt: $0, to: &bytes) }
    }

    /// Appends the entry of the record at `record` to `bytes`, reading the record in place (a
    /// commit's records lie in its change set's arrays; passing one by value would retain and
    /// release its arrays per entry).
    ///
    /// An entry whose values all have a fixed-size encoding (numbers, dates, UUIDs, `nil`) is
    /// written into a scratch buffer on the stack through pointers and appended at once; one
    /// with a string, bytes or a decimal is appended element by element.
    func appendEntry(ofRecordAt record: UnsafePointer<Record>, to bytes: inout [UInt8]) {
        let capacity = prefix.count + sources.count * TupleEncoder.largestFixedWidthElement + 9
        let appended = withUnsafeTemporaryAllocation(byteCount: capacity, alignment: 1) { scratch -> Bool in
            let base = scratch.baseAddress.unsafelyUnwrapped
            prefix.withUnsafeBytes { base.copyMemory(from: $0.baseAddress.unsafelyUnwrapped, byteCount: $0.count) }
            var count = prefix.count
            for source in sources {
                guard let written = storeFixedWidthValue(ofRecordAt: record, source, at: base + count) else { return false }
                count += written
            }
            count += TupleEncoder.storeInt(record.pointee.id.key, at: base + count)
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: base, count: count))
            return true
        }
        guard !appended else { return }
        bytes.append(contentsOf: prefix)
        for source in sources { TupleEncoder.encode(value(of: record.pointee, source), into: &bytes) }
        TupleEncoder.encodeInt(record.pointee.id.key, into: &bytes)
    }

    /// Writes the value one component takes from the record at `record` at `destination` when
    /// its encoding has a fixed size (see ``TupleEncoder/storeFixedWidth(_:at:)``).
    private func storeFixedWidthValue(ofRecordAt record: UnsafePointer<Record>, _ source: Source, at destination: UnsafeMutableRawPointer) -> Int? {
        switch source {
        case .attribute(let ordinal):
            return record.pointee.attributes.withUnsafeBufferPointer { attributes in
                guard let ordinal, ordinal < attributes.count else { return TupleEncoder.storeFixedWidth(.null, at: destination) }
                return TupleEncoder.storeFixedWidth(attributes[ordinal], at: destination)
            }
        case .relationship(let ordinal):
            return record.pointee.relationships.withUnsafeBufferPointer { relationships in
                guard let ordinal, ordinal < relationships.count,
                      let destinationKey = relationships[ordinal].first?.key else { return TupleEncoder.storeFixedWidth(.null, at: destination) }
                return TupleEncoder.storeInt(destinationKey, at: destination)
            }
        }
    }
}
