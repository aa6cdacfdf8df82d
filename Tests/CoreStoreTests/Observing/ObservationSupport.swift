import Foundation
@testable import CoreStore

/// A serial delivery queue of its own per test, so tests never depend on the main queue.
func makeDeliveryQueue() -> DispatchQueue {
    DispatchQueue(label: "test.delivery.\(UUID().uuidString)")
}

/// Commits a person named Ann and her dog Fido.
func insertAnnAndFido(_ stack: DataStack) throws {
    try stack.perform(synchronous: { t in _ = createAnnAndFido(in: t) })
}

/// Ann and her dog Fido, created in `transaction`.
@discardableResult
func createAnnAndFido(in transaction: BaseDataTransaction) -> (ann: Person, fido: Dog) {
    let ann = transaction.create(Into<Person>())
    ann.name = "Ann"
    let fido = transaction.create(Into<Dog>())
    fido.name = "Fido"
    fido.master = ann
    return (ann, fido)
}

/// Records every list callback as text: `insert Ann [0,1]`, `move Bob [0,0]->[1,0]`, ….
final class ListRecorder<O: CoreStoreObject>: ListSectionObserver, @unchecked Sendable {
    typealias ListEntityType = O
    private let lock = NSLock()
    private var _events: [String] = []
    private let describe: (O) -> String

    init(_ describe: @escaping (O) -> String) { self.describe = describe }

    var events: [String] { lock.withLock { _events } }
    func reset() { lock.withLock { _events.removeAll() } }
    private func record(_ event: String) { lock.withLock { _events.append(event) } }
    private func path(_ p: IndexPath) -> String { "[\(p.section),\(p.item)]" }

    func listMonitorWillChange(_ monitor: ListMonitor<O>) { record("willChange") }
    func listMonitorDidChange(_ monitor: ListMonitor<O>) { record("didChange") }
    func listMonitorWillRefetch(_ monitor: ListMonitor<O>) { record("willRefetch") }
    func listMonitorDidRefetch(_ monitor: ListMonitor<O>) { record("didRefetch") }
    func listMonitor(_ monitor: ListMonitor<O>, didInsertObject object: O, toIndexPath indexPath: IndexPath) {
        record("insert \(describe(object)) \(path(indexPath))")
    }
    func listMonitor(_ monitor: ListMonitor<O>, didDeleteObject object: O, fromIndexPath indexPath: IndexPath) {
        record("delete \(describe(object)) \(path(indexPath))")
    }
    func listMonitor(_ monitor: ListMonitor<O>, didUpdateObject object: O, atIndexPath indexPath: IndexPath) {
        record("update \(describe(object)) \(path(indexPath))")
    }
    func listMonitor(_ monitor: ListMonitor<O>, didMoveObject object: O, fromIndexPath: IndexPath, toIndexPath: IndexPath) {
        record("move \(describe(object)) \(path(fromIndexPath))->\(path(toIndexPath))")
    }
    func listMonitor(_ monitor: ListMonitor<O>, didInsertSection sectionInfo: ListMonitor<O>.SectionInfo, toSectionIndex sectionIndex: Int) {
        record("insertSection \(sectionInfo.name ?? "nil") \(sectionIndex)")
    }
    func listMonitor(_ monitor: ListMonitor<O>, didDeleteSection sectionInfo: ListMonitor<O>.SectionInfo, fromSectionIndex sectionIndex: Int) {
        record("deleteSection \(sectionInfo.name ?? "nil") \(sectionIndex)")
    }
}

/// Records object-monitor callbacks as text.
final class ObjectRecorder<O: CoreStoreObject>: ObjectObserver, @unchecked Sendable {
    typealias ObjectEntityType = O
    private let lock = NSLock()
    private var _events: [String] = []
    private let describe: (O) -> String

    init(_ describe: @escaping (O) -> String) { self.describe = describe }

    var events: [String] { lock.withLock { _events } }
    private func record(_ event: String) { lock.withLock { _events.append(event) } }

    func objectMonitor(_ monitor: ObjectMonitor<O>, willUpdateObject object: O) { record("willUpdate \(describe(object))") }
    func objectMonitor(_ monitor: ObjectMonitor<O>, didUpdateObject object: O, changedPersistentKeys: Set<String>) {
        record("didUpdate \(describe(object)) \(changedPersistentKeys.sorted())")
    }
    func objectMonitor(_ monitor: ObjectMonitor<O>, didDeleteObject object: O) { record("didDelete \(describe(object))") }
}

/// The names of a monitored list, section by section.
func sectionNames(_ monitor: ListMonitor<Person>) -> [[String]] {
    (0..<monitor.numberOfSections()).map { monitor.objects(in: $0).map(\.name) }
}
