import Foundation

/// One observer of a ``ListMonitor``, held weakly, with the callbacks its protocol offers.
struct ListObserverBox<O: CoreStoreObject> {
    weak var observer: AnyObject?
    var willChange: ((ListMonitor<O>, Any?) -> Void)?
    var didChange: ((ListMonitor<O>, Any?) -> Void)?
    var willRefetch: ((ListMonitor<O>, Any?) -> Void)?
    var didRefetch: ((ListMonitor<O>, Any?) -> Void)?
    var insertObject: ((ListMonitor<O>, O, IndexPath, Any?) -> Void)?
    var deleteObject: ((ListMonitor<O>, O, IndexPath, Any?) -> Void)?
    var updateObject: ((ListMonitor<O>, O, IndexPath, Any?) -> Void)?
    var moveObject: ((ListMonitor<O>, O, IndexPath, IndexPath, Any?) -> Void)?
    var insertSection: ((ListMonitor<O>, ListMonitor<O>.SectionInfo, Int) -> Void)?
    var deleteSection: ((ListMonitor<O>, ListMonitor<O>.SectionInfo, Int) -> Void)?

    init<U: ListObserver>(_ observer: U) where U.ListEntityType == O {
        self.observer = observer
        willChange = { [weak observer] in observer?.listMonitorWillChange($0, sourceIdentifier: $1) }
        didChange = { [weak observer] in observer?.listMonitorDidChange($0, sourceIdentifier: $1) }
        willRefetch = { [weak observer] in observer?.listMonitorWillRefetch($0, sourceIdentifier: $1) }
        didRefetch = { [weak observer] in observer?.listMonitorDidRefetch($0, sourceIdentifier: $1) }
    }

    init<U: ListObjectObserver>(objectObserver observer: U) where U.ListEntityType == O {
        self.init(observer)
        insertObject = { [weak observer] in observer?.listMonitor($0, didInsertObject: $1, toIndexPath: $2, sourceIdentifier: $3) }
        deleteObject = { [weak observer] in observer?.listMonitor($0, didDeleteObject: $1, fromIndexPath: $2, sourceIdentifier: $3) }
        updateObject = { [weak observer] in observer?.listMonitor($0, didUpdateObject: $1, atIndexPath: $2, sourceIdentifier: $3) }
        moveObject = { [weak observer] in observer?.listMonitor($0, didMoveObject: $1, fromIndexPath: $2, toIndexPath: $3, sourceIdentifier: $4) }
    }

    init<U: ListSectionObserver>(sectionObserver observer: U) where U.ListEntityType == O {
        self.init(objectObserver: observer)
        insertSection = { [weak observer] in observer?.listMonitor($0, didInsertSection: $1, toSectionIndex: $2) }
        deleteSection = { [weak observer] in observer?.listMonitor($0, didDeleteSection: $1, fromSectionIndex: $2) }
    }
}
