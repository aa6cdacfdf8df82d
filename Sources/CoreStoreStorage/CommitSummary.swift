import Foundation

/// Which records one stored commit changed: identifiers and changed keys, no values.
///
/// A store that others write to (``SharedAccessStorage``) may keep the summaries of its last
/// commits (``SharedAccessStorage/committedChanges(after:)``). A `DataStack` that falls behind
/// then reads the summaries since its last commit and the records they name, once, and hands
/// them to its monitors as if it had made the commits itself — instead of reading every object
/// and every monitored list again.
public struct CommitSummary: Sendable, Hashable {
    /// The commit's sequence number (``CommitInfo/sequence``).
    public var sequence: UInt64
    /// What the commit changed; `nil` when it changed more records than a summary lists
    /// (``maximumRecordCount``): a reader then reads everything again.
    public var changes: Changes?

    /// The records of one commit.
    public struct Changes: Sendable, Hashable {
        /// The records inserted, in the order written.
        public var inserted: [RecordID]
        /// The records updated, each with the keys that changed, in the order written.
        public var updated: [RecordID]
        /// The changed keys of each record of ``updated``.
        public var changedKeys: [RecordID: Set<String>]
        /// The records deleted.
        public var deleted: [RecordID]

        /// Creates the changes of one commit.
        public init(inserted: [RecordID] = [], updated: [RecordID] = [], changedKeys: [RecordID: Set<String>] = [:], deleted: [RecordID] = []) {
            self.inserted = inserted
            self.updated = updated
            self.changedKeys = changedKeys
            self.deleted = deleted
        }

        /// The number of records changed.
        public var recordCount: Int { inserted.count + updated.count + deleted.count }
    }

    /// A commit that changes more records than this is summarized without them (``changes`` is
    /// `nil`), so that one bulk import does not write its identifiers twice.
    public static let maximumRecordCount = 10_000

    /// Creates a summary.
    public init(sequence: UInt64, changes: Changes?) {
        self.sequence = sequence
        self.changes = changes
    }

    /// The summary of what a write reported.
    public init(_ info: CommitInfo) {
        let merged = info.changes
        guard merged.inserts.count + merged.updates.count + merged.deletes.count + merged.unreadDeletes.count <= Self.maximumRecordCount else {
            self.init(sequence: info.sequence, changes: nil)
            return
        }
        var changes = Changes(inserted: merged.inserts.map(\.id), deleted: merged.deletedIDs)
        for update in merged.updates {
            changes.updated.append(update.new.id)
            changes.changedKeys[update.new.id] = update.changedKeys
        }
        self.init(sequence: info.sequence, changes: changes)
    }
}

// MARK: Text form

extension CommitSummary {
    /// The changes as lines of text, for a store to keep in a text column: `I` (inserted keys)
    /// or `D` (deleted keys) for each run of records of one entity, `U` for each run of updated
    /// records of one entity that changed the same keys, then the entity name, then the keys
    /// (and, for `U`, the changed keys); fields are separated by tabs, lists by commas, and
    /// names are percent-escaped. Three or more consecutive keys are written as a range, `4..9`.
    /// `nil` when ``changes`` is `nil`.
    public var encodedChanges: String? {
        guard let changes else { return nil }
        var lines: [String] = []
        for (kind, ids) in [("I", changes.inserted), ("D", changes.deleted)] {
            // One line per run of records of one entity: the order is kept.
            var start = ids.startIndex
            while start < ids.endIndex {
                let entity = ids[start].entity
                var end = start
                while end < ids.endIndex && ids[end].entity == entity { end += 1 }
                lines.append("\(kind)\t\(Self.escaped(entity))\t" + Self.keyList(ids[start..<end]))
                start = end
            }
        }
        // One line per run of updates of one entity that changed the same keys (a bulk update
        // of one attribute is one line), in order.
        let updated = changes.updated
        let changed = updated.map { (changes.changedKeys[$0] ?? []).sorted().map(Self.escaped).joined(separator: ",") }
        var start = updated.startIndex
        while start < updated.endIndex {
            var end = start + 1
            while end < updated.endIndex, updated[end].entity == updated[start].entity, changed[end] == changed[start] { end += 1 }
            lines.append("U\t\(Self.escaped(updated[start].entity))\t" + Self.keyList(updated[start..<end]) + "\t\(changed[start])")
            start = end
        }
        return lines.joined(separator: "\n")
    }

    /// The keys of `ids` in decimal, comma-separated, a run of three or more consecutive keys
    /// written as its first and last key joined by `..` (`4..9`): a bulk delete or import lists
    /// one range instead of every key. Written digit by digit into one buffer (a string per
    /// key, then joining them, cost about twice as much).
    private static func keyList(_ ids: ArraySlice<RecordID>) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(ids.count * 8)
        var start = ids.startIndex
        while start < ids.endIndex {
            if start > ids.startIndex { bytes.append(UInt8(ascii: ",")) }
            let first = ids[start].key
            // The end of the run of consecutive keys that starts here.
            var end = start + 1
            while end < ids.endIndex {
                let (next, overflows) = first.addingReportingOverflow(Int64(end - start))
                guard !overflows, ids[end].key == next else { break }
                end += 1
            }
            appendDecimal(first, to: &bytes)
            if end - start >= 3 {
                bytes.append(UInt8(ascii: "."))
                bytes.append(UInt8(ascii: "."))
                appendDecimal(ids[end - 1].key, to: &bytes)
                start = end
            } else {
                start += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` in decimal to `bytes`.
    private static func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var rest = value.magnitude
        let firstDigit = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        bytes[firstDigit...].reverse()
    }

    /// The keys a ``keyList(_:)`` entry names: one key, or every key of a range `a..b`
    /// (`a < b`). `nil` for text `keyList(_:)` never writes, or a range longer than a summary
    /// lists (``maximumRecordCount``; `budget` is what is left of it).
    private static func keys(in text: Substring, budget: inout Int) -> ClosedRange<Int64>? {
        let bounds: ClosedRange<Int64>
        if let separator = text.range(of: "..") {
            guard let first = Int64(text[..<separator.lowerBound]), let last = Int64(text[separator.upperBound...]), first < last else { return nil }
            let (span, overflows) = last.subtractingReportingOverflow(first)
            guard !overflows, span < Int64(budget) else { return nil }
            bounds = first...last
        } else {
            guard let key = Int64(text) else { return nil }
            bounds = key...key
        }
        budget -= Int(bounds.upperBound - bounds.lowerBound) + 1
        return budget >= 0 ? bounds : nil
    }

    /// Reads the text form of ``encodedChanges`` (`nil`: the commit was too large to list).
    /// Fails for text ``encodedChanges`` never writes: the summary is a hint, and a reader that
    /// cannot use it reads everything again.
    public init?(sequence: UInt64, encodedChanges: String?) {
        guard let encodedChanges else {
            self.init(sequence: sequence, changes: nil)
            return
        }
        var changes = Changes()
        var budget = Self.maximumRecordCount
        for line in encodedChanges.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 3, let entity = Self.unescaped(fields[1]) else {
                return nil
            }
            func ids(_ list: Substring) -> [RecordID]? {
                var ids: [RecordID] = []
                for text in list.split(separator: ",") {
                    guard let keys = Self.keys(in: text, budget: &budget) else { return nil }
                    for key in keys { ids.append(RecordID(entity: entity, key: key)) }
                }
                return ids
            }
            switch fields[0] {
            case "I" where fields.count == 3:
                guard let ids = ids(fields[2]) else { return nil }
                changes.inserted += ids
            case "D" where fields.count == 3:
                guard let ids = ids(fields[2]) else { return nil }
                changes.deleted += ids
            case "U" where fields.count == 4:
                guard let ids = ids(fields[2]) else { return nil }
                var changed = Set<String>()
                for text in fields[3].split(separator: ",") {
                    guard let name = Self.unescaped(text) else {
                        return nil
                    }
                    changed.insert(name)
                }
                changes.updated += ids
                for id in ids { changes.changedKeys[id] = changed }
            default:
                return nil
            }
        }
        self.init(sequence: sequence, changes: changes)
    }

    /// `name` with `%`, tab, newline and comma percent-escaped.
    private static func escaped(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 == 0x25 || $0 == 0x09 || $0 == 0x0A || $0 == 0x2C }) else { return name }
        var result = ""
        for character in name.unicodeScalars {
            switch character {
            case "%": result += "%25"
            case "\t": result += "%09"
            case "\n": result += "%0A"
            case ",": result += "%2C"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// The name `escaped(_:)` made `text` from; `nil` for a malformed escape.
    private static func unescaped(_ text: Substring) -> String? {
        guard text.contains("%") else { return String(text) }
        return text.removingPercentEncoding
    }
}
