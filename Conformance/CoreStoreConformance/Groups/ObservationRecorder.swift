import Foundation
import CoreStore

/// Records list callbacks as text (`insert Ann [0,1]`) and as identifiers, for the observation
/// cases.
final class ObservationListRecorder: ListSectionObserver, @unchecked Sendable {
    typealias ListEntityType = ConformancePerson
    private let lock = NSLock()
    private var _events: [String] = []
    private var _batches = 0
    private var _ids: [(String, ObjectID?, IndexPath?, IndexPath?, Int?)] = []

    var events: [String] { lock.withLock { _events } }
    var batches: Int { lock.withLock { _batches } }
    func reset() { lock.withLock { _events.removeAll(); _ids.removeAll() } }

    private func record(_ text: String, _ kind: String = "", _ id: ObjectID? = nil, _ a: IndexPath? = nil, _ b: IndexPath? = nil, _ s: Int? = nil) {
        lock.withLock {
            _events.append(text)
            if !kind.isEmpty { _ids.append((kind, id, a, b, s)) }
        }
    }
    private func p(_ path: IndexPath) -> String { "[\(path.section),\(path.item)]" }

    func listMonitorWillChange(_ monitor: ListMonitor<ConformancePerson>) { record("willChange") }
    func listMonitorDidChange(_ monitor: ListMonitor<ConformancePerson>) {
        record("didChange")
        lock.withLock { _batches += 1 }
    }
    func listMonitorWillRefetch(_ monitor: ListMonitor<ConformancePerson>) { record("willRefetch") }
    func listMonitorDidRefetch(_ monitor: ListMonitor<ConformancePerson>) { record("didRefetch") }
    func listMonitor(_ monitor: ListMonitor<ConformancePerson>, didInsertObject object: ConformancePerson, toIndexPath indexPath: IndexPath) {
        record("insert \(object.name) \(p(indexPath))", "insert", object.cs_id(), indexPath)
    }
    func listMonitor(_ monitor: ListMonitor<ConformancePerson>, didDeleteObject object: ConformancePerson, fromIndexPath indexPath: IndexPath) {
        record("delete \(object.name) \(p(indexPath))", "delete", object.cs_id(), indexPath)
    }
    func listMonitor(_ monitor: ListMonitor<ConformancePerson>, didUpdateObject object: ConformancePerson, atIndexPath indexPath: IndexPath) {
        record("update \(object.name) \(p(indexPath))", "update", object.cs_id(), indexPath)
    }
    func listMonitor(_ monitor: ListMonitor<ConformancePerson>, didMoveObject object: ConformancePerson, fromIndexPath: IndexPath, toIndexPath: IndexPath) {
        record("move \(object.name) \(p(fromIndexPath))->\(p(toIndexPath))", "move", object.cs_id(), fromIndexPath, toIndexPath)
    }
    func listMonitor(_ monitor: ListMonitor<ConformancePerson>, didInsertSection sectionInfo: ListMonitor<ConformancePerson>.SectionInfo, toSectionIndex sectionIndex: Int) {
        record("insertSection \(sectionInfo.name ?? "nil") \(sectionIndex)", "insertSection", nil, nil, nil, sectionIndex)
    }
    func listMonitor(_ monitor: ListMonitor<ConformancePerson>, didDeleteSection sectionInfo: ListMonitor<ConformancePerson>.SectionInfo, fromSectionIndex sectionIndex: Int) {
        record("deleteSection \(sectionInfo.name ?? "nil") \(sectionIndex)", "deleteSection", nil, nil, nil, sectionIndex)
    }

    /// Applies the recorded callbacks to `old` the way a table view applies batch updates
    /// (deletes and move sources at old index paths, inserts and move targets at new ones);
    /// `nil` when they do not fit the old list.
    func replay(on old: [[ObjectID]]) -> [[ObjectID]]? {
        let calls = lock.withLock { _ids }
        var removed = Set<IndexPath>(), deletedSections = Set<Int>(), insertedSections: [Int] = []
        var placed: [(IndexPath, ObjectID)] = []
        for (kind, id, a, b, s) in calls {
            switch kind {
            case "delete": if let a { removed.insert(a) }
            case "move": if let a, let b, let id { removed.insert(a); placed.append((b, id)) }
            case "insert": if let a, let id { placed.append((a, id)) }
            case "deleteSection": if let s { deletedSections.insert(s) }
            case "insertSection": if let s { insertedSections.append(s) }
            default: break
            }
        }
        var sections: [[ObjectID]] = []
        for (s, items) in old.enumerated() {
            let kept = items.enumerated().filter { !removed.contains(IndexPath(indexes: [s, $0.offset])) }.map(\.element)
            if deletedSections.contains(s) {
                if !kept.isEmpty { return nil }
            } else {
                sections.append(kept)
            }
        }
        for s in insertedSections.sorted() {
            guard s <= sections.count else { return nil }
            sections.insert([], at: s)
        }
        for (path, id) in placed.sorted(by: { $0.0 < $1.0 }) {
            guard sections.indices.contains(path[0]), path[1] <= sections[path[0]].count else { return nil }
            sections[path[0]].insert(id, at: path[1])
        }
        return sections
    }
}

/// Records object-monitor callbacks as text.
final class ObservationObjectRecorder: ObjectObserver, @unchecked Sendable {
    typealias ObjectEntityType = ConformancePerson
    private let lock = NSLock()
    private var _events: [String] = []
    var events: [String] { lock.withLock { _events } }
    private func record(_ text: String) { lock.withLock { _events.append(text) } }

    func objectMonitor(_ monitor: ObjectMonitor<ConformancePerson>, willUpdateObject object: ConformancePerson) { record("willUpdate \(object.name)") }
    func objectMonitor(_ monitor: ObjectMonitor<ConformancePerson>, didUpdateObject object: ConformancePerson, changedPersistentKeys: Set<String>) {
        record("didUpdate \(object.name) \(changedPersistentKeys.sorted().joined(separator: ","))")
    }
    func objectMonitor(_ monitor: ObjectMonitor<ConformancePerson>, didDeleteObject object: ConformancePerson) { record("didDelete \(object.name)/\(object.age)") }
}
