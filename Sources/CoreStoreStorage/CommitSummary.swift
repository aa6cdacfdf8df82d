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
    /// or `D` (deleted keys) for each run of records of one entity, `U` for each updated record
    /// (its key and its changed keys), then the entity name, then the keys; fields are separated by tabs, lists by
    /// commas, and names are percent-escaped. `nil` when ``changes`` is `nil`.
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
        for id in changes.updated {
            let changed = (changes.changedKeys[id] ?? []).sorted().map(Self.escaped).joined(separator: ",")
            lines.append("U\t\(Self.escaped(id.entity))\t\(id.key)\t\(changed)")
        }
        return lines.joined(separator: "\n")
    }

    /// The keys of `ids` in decimal, comma-separated: written digit by digit into one buffer
    /// (a string per key, then joining them, cost about twice as much, and a bulk delete lists
    /// every key it removed).
    private static func keyList(_ ids: ArraySlice<RecordID>) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(ids.count * 8)
        var digits: [UInt8] = []
        digits.reserveCapacity(20)
        for id in ids {
            if !bytes.isEmpty { bytes.append(UInt8(ascii: ",")) }
            if id.key < 0 { bytes.append(UInt8(ascii: "-")) }
            var value = id.key.magnitude
            digits.removeAll(keepingCapacity: true)
            repeat {
                digits.append(UInt8(ascii: "0") + UInt8(value % 10))
                value /= 10
            } while value > 0
            bytes.append(contentsOf: digits.reversed())
        }
        return String(decoding: bytes, as: UTF8.self)
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
        for line in encodedChanges.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 3, let entity = Self.unescaped(fields[1]) else {
                return nil
            }
            func key(_ text: Substring) -> RecordID? {
                Int64(text).map { RecordID(entity: entity, key: $0) }
            }
            switch fields[0] {
            case "I" where fields.count == 3:
                for text in fields[2].split(separator: ",") {
                    guard let id = key(text) else { return nil }
                    changes.inserted.append(id)
                }
            case "D" where fields.count == 3:
                for text in fields[2].split(separator: ",") {
                    guard let id = key(text) else { return nil }
                    changes.deleted.append(id)
                }
            case "U" where fields.count == 4:
                guard let id = key(fields[2]) else { return nil }
                var changed = Set<String>()
                for text in fields[3].split(separator: ",") {
                    guard let name = Self.unescaped(text) else {
                        return nil
                    }
                    changed.insert(name)
                }
                changes.updated.append(id)
                changes.changedKeys[id] = changed
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
