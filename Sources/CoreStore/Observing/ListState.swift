import Foundation
import CoreStoreStorage

/// The members of a monitored list in order, grouped into sections, updated commit by commit.
///
/// Finding a member, its index path, or where a changed member goes costs O(log n) (binary
/// search on the sort values); applying a commit of k changes costs O(k log n) comparisons
/// plus moving the elements of a chunk (``ChunkedArray``), never a refetch.
struct ListState {
    let ordering: ListOrdering
    /// Whether sections follow the first sort key (which is the section key); otherwise the
    /// list has exactly one section, named `nil`.
    let isSectioned: Bool
    private(set) var entries = ChunkedArray<ListEntry>()
    private(set) var members: [ObjectID: ListEntry] = [:]
    private(set) var sections: [ListSectionRun] = []
    /// The flat index of each section's first member.
    private(set) var sectionStarts: [Int] = []

    init(ordering: ListOrdering, isSectioned: Bool, entries: [ListEntry] = []) {
        self.ordering = ordering
        self.isSectioned = isSectioned
        replaceAll(entries)
    }

    /// Replaces every member (entries in any order).
    mutating func replaceAll(_ newEntries: [ListEntry]) {
        entries = ChunkedArray(newEntries.sorted(by: ordering.precedes))
        members = Dictionary(entries.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        if isSectioned {
            sections = []
            for entry in entries {
                if let last = sections.last, ordering.sameSection(last.key, entry.sortValues[0]) {
                    sections[sections.count - 1].count += 1
                } else {
                    sections.append(ListSectionRun(key: entry.sortValues[0], name: ListSectionName.name(for: entry.sortValues[0]), count: 1))
                }
            }
        } else {
            sections = [ListSectionRun(key: .null, name: nil, count: entries.count)]
        }
        recomputeStarts()
    }

    // MARK: Lookup

    /// The flat index of a member.
    func flatIndex(of id: ObjectID) -> Int? {
        guard let entry = members[id] else { return nil }
        return flatIndex(of: entry)
    }

    /// The flat index of an entry known to be a member.
    func flatIndex(of entry: ListEntry) -> Int {
        ordering.insertionIndex(of: entry, in: entries)
    }

    /// `[section, item]` of a flat index.
    func indexPath(forFlatIndex flat: Int) -> IndexPath {
        let section = sectionIndex(forFlatIndex: flat, starts: sectionStarts)
        return IndexPath(indexes: [section, flat - sectionStarts[section]])
    }

    /// The flat index of `[section, item]`, or `nil` when out of range.
    func flatIndex(for indexPath: IndexPath) -> Int? {
        guard indexPath.count == 2 else { return nil }
        let section = indexPath[0], item = indexPath[1]
        guard sections.indices.contains(section), item >= 0, item < sections[section].count else { return nil }
        return sectionStarts[section] + item
    }

    private func sectionIndex(forFlatIndex flat: Int, starts: [Int]) -> Int {
        var low = 0, high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= flat { low = mid } else { high = mid - 1 }
        }
        return low
    }

    private mutating func recomputeStarts() {
        var start = 0
        sectionStarts = sections.map { run in
            defer { start += run.count }
            return start
        }
    }

    // MARK: Applying a commit

    /// Applies a commit's delta and describes what changed.
    mutating func apply(_ delta: ListDelta) -> ListChanges {
        var deletes: [ListEntry] = []
        var inserts: [ListEntry] = []
        var repositions: [(old: ListEntry, new: ListEntry)] = []
        var inPlace: [ListEntry] = []
        func classify(_ id: ObjectID, _ old: ListEntry?, _ new: ListEntry?) {
            switch (old, new) {
            case (nil, nil): break
            case (let old?, nil): deletes.append(old)
            case (nil, let new?): inserts.append(new)
            case (let old?, let new?):
                if ordering.sameSortValues(old, new) {
                    if delta.updated.contains(id) { inPlace.append(new) }
                } else {
                    repositions.append((old, new))
                }
            }
        }
        if delta.isComplete {
            for (id, old) in members where delta.matches[id] == nil { classify(id, old, nil) }
            for (id, new) in delta.matches { classify(id, members[id], new) }
        } else {
            for id in delta.examined { classify(id, members[id], delta.matches[id]) }
        }
        var changes = ListChanges()
        for entry in inPlace {
            entries[flatIndex(of: entry)] = entry
            members[entry.id] = entry
        }
        if deletes.isEmpty && inserts.isEmpty && repositions.isEmpty {
            changes.updatedObjects = inPlace.map { ListChanges.ObjectChange(objectID: $0.id, indexPath: indexPath(forFlatIndex: flatIndex(of: $0))) }.sorted { $0.indexPath < $1.indexPath }
            return changes
        }

        // Where things were.
        let oldStarts = sectionStarts
        let deleteFlats = deletes.map { flatIndex(of: $0) }
        let repositionFlats = repositions.map { flatIndex(of: $0.old) }
        let oldPaths = repositionFlats.map { indexPath(forFlatIndex: $0) }
        changes.deletedObjects = zip(deletes, deleteFlats).map { .init(objectID: $0.id, indexPath: indexPath(forFlatIndex: $1)) }
        let oldSectionOfReposition = repositionFlats.map { sectionIndex(forFlatIndex: $0, starts: oldStarts) }

        // Take out what leaves or moves.
        var work: [(run: ListSectionRun, oldIndex: Int?)] = sections.enumerated().map { ($1, $0) }
        let removedFlats = (deleteFlats + repositionFlats).sorted()
        for flat in removedFlats { work[sectionIndex(forFlatIndex: flat, starts: oldStarts)].run.count -= 1 }
        let incoming = (inserts + repositions.map(\.new)).sorted(by: ordering.precedes)
        // Where each moving object's old and new versions go among the others.
        let gaps: [(Int, Int)]
        if deletes.isEmpty, inserts.isEmpty, repositions.count == 1 {
            // One object moved (the common single update): shift only the entries between its
            // old and new places instead of removing and inserting across the whole list.
            let newIndex = Self.move(from: repositionFlats[0], to: repositions[0].new, in: &entries, ordering: ordering)
            gaps = [(repositionFlats[0], newIndex)]
        } else {
            // Take out what leaves or moves, then put in what joins or moves.
            Self.remove(sortedIndexes: removedFlats, from: &entries)
            for entry in deletes { members[entry.id] = nil }
            gaps = repositions.map { (ordering.insertionIndex(of: $0.old, in: entries), ordering.insertionIndex(of: $0.new, in: entries)) }
            Self.merge(incoming, into: &entries, ordering: ordering)
        }
        for entry in incoming {
            members[entry.id] = entry
            if isSectioned {
                let key = entry.sortValues[0]
                var low = 0, high = work.count
                while low < high {
                    let mid = (low + high) / 2
                    if ordering.sectionPrecedes(work[mid].run.key, key) { low = mid + 1 } else { high = mid }
                }
                if low < work.count, ordering.sameSection(work[low].run.key, key) {
                    work[low].run.count += 1
                } else {
                    work.insert((ListSectionRun(key: key, name: ListSectionName.name(for: key), count: 1), nil), at: low)
                }
            } else {
                work[0].run.count += 1
            }
        }

        // Sections that emptied or appeared.
        var survivingOld = Set<Int>()
        for item in work {
            guard let old = item.oldIndex else { continue }
            if item.run.count > 0 || !isSectioned { survivingOld.insert(old) } else {
                changes.deletedSections.append(.init(name: item.run.name, sectionIndex: old))
            }
        }
        let kept = work.filter { $0.run.count > 0 || !isSectioned }
        sections = kept.map(\.run)
        recomputeStarts()
        var insertedSectionIndexes = Set<Int>()
        for (index, item) in kept.enumerated() where item.oldIndex == nil {
            insertedSectionIndexes.insert(index)
            changes.insertedSections.append(.init(name: item.run.name, sectionIndex: index))
        }

        // Objects that joined.
        changes.insertedObjects = inserts.map { .init(objectID: $0.id, indexPath: indexPath(forFlatIndex: flatIndex(of: $0))) }

        // Objects whose sort values changed: a move when their place among the others changed.
        var moved = repositions.indices.map { i in
            gaps[i].0 != gaps[i].1 || (isSectioned && !ordering.sameSection(repositions[i].old.sortValues[0], repositions[i].new.sortValues[0]))
        }
        var sameGap: [Int: [Int]] = [:]
        for i in repositions.indices where !moved[i] { sameGap[gaps[i].1, default: []].append(i) }
        for group in sameGap.values where group.count > 1 {
            let byOld = group.sorted { repositionFlats[$0] < repositionFlats[$1] }
            let byNew = group.sorted { ordering.precedes(repositions[$0].new, repositions[$1].new) }
            if byOld != byNew { for i in group { moved[i] = true } }
        }
        for (i, pair) in repositions.enumerated() {
            let newPath = indexPath(forFlatIndex: flatIndex(of: pair.new))
            guard moved[i] else {
                changes.updatedObjects.append(.init(objectID: pair.new.id, indexPath: newPath))
                continue
            }
            let bothSectionsSurvive = survivingOld.contains(oldSectionOfReposition[i]) && !insertedSectionIndexes.contains(newPath[0])
            if bothSectionsSurvive {
                changes.movedObjects.append(.init(objectID: pair.new.id, fromIndexPath: oldPaths[i], toIndexPath: newPath))
            } else {
                changes.deletedObjects.append(.init(objectID: pair.old.id, indexPath: oldPaths[i]))
                changes.insertedObjects.append(.init(objectID: pair.new.id, indexPath: newPath))
            }
        }
        changes.updatedObjects += inPlace.map { .init(objectID: $0.id, indexPath: indexPath(forFlatIndex: flatIndex(of: $0))) }

        changes.deletedObjects.sort { $0.indexPath < $1.indexPath }
        changes.deletedSections.sort { $0.sectionIndex < $1.sectionIndex }
        changes.insertedSections.sort { $0.sectionIndex < $1.sectionIndex }
        changes.insertedObjects.sort { $0.indexPath < $1.indexPath }
        changes.movedObjects.sort { $0.toIndexPath < $1.toIndexPath }
        changes.updatedObjects.sort { $0.indexPath < $1.indexPath }
        return changes
    }

    /// Replaces the entry at `index` by `entry` (the same object with other sort values) at the
    /// place `entry` belongs; returns the new place. Only the chunks of the two places shift.
    private static func move(from index: Int, to entry: ListEntry, in entries: inout ChunkedArray<ListEntry>, ordering: ListOrdering) -> Int {
        // Where it goes among the others: the old entry, still at `index`, precedes it exactly
        // when it sits before that place.
        let place = ordering.insertionIndex(of: entry, in: entries)
        let target = place > index ? place - 1 : place
        if target == index {
            entries[index] = entry
        } else {
            entries.remove(at: index)
            entries.insert(entry, at: target)
        }
        return target
    }

    /// Removes the elements at `indexes` (ascending, distinct).
    private static func remove(sortedIndexes indexes: [Int], from entries: inout ChunkedArray<ListEntry>) {
        if indexes.count <= 16 {
            for index in indexes.reversed() { entries.remove(at: index) }
            return
        }
        var result: [ListEntry] = []
        result.reserveCapacity(entries.count - indexes.count)
        var next = 0
        for (i, entry) in entries.enumerated() {
            if next < indexes.count, indexes[next] == i { next += 1; continue }
            result.append(entry)
        }
        entries = ChunkedArray(result)
    }

    /// Merges `incoming` (sorted) into `entries` in order.
    private static func merge(_ incoming: [ListEntry], into chunked: inout ChunkedArray<ListEntry>, ordering: ListOrdering) {
        if incoming.count <= 16 {
            for entry in incoming { chunked.insert(entry, at: ordering.insertionIndex(of: entry, in: chunked)) }
            return
        }
        let entries = Array(chunked)
        var result: [ListEntry] = []
        result.reserveCapacity(entries.count + incoming.count)
        var i = 0, j = 0
        while i < entries.count || j < incoming.count {
            if j == incoming.count || (i < entries.count && ordering.precedes(entries[i], incoming[j])) {
                result.append(entries[i]); i += 1
            } else {
                result.append(incoming[j]); j += 1
            }
        }
        chunked = ChunkedArray(result)
    }
}
