import Foundation

/// Told when a ``ListMonitor``'s list changes as a whole: before and after each commit that
/// changes it, and around refetches. Every method has an empty default.
///
/// During the callbacks of a commit the monitor already shows the new list.
public protocol ListObserver: AnyObject {
    /// The listed type.
    associatedtype ListEntityType: CoreStoreObject

    /// A commit changed the list; object and section callbacks follow.
    func listMonitorWillChange(_ monitor: ListMonitor<ListEntityType>)
    /// Every callback of the commit was delivered.
    func listMonitorDidChange(_ monitor: ListMonitor<ListEntityType>)
    /// The monitor is about to show a refetched list.
    func listMonitorWillRefetch(_ monitor: ListMonitor<ListEntityType>)
    /// The monitor shows the refetched list.
    func listMonitorDidRefetch(_ monitor: ListMonitor<ListEntityType>)

    /// ``listMonitorWillChange(_:)`` with the committing transaction's `sourceIdentifier`.
    func listMonitorWillChange(_ monitor: ListMonitor<ListEntityType>, sourceIdentifier: Any?)
    /// ``listMonitorDidChange(_:)`` with the committing transaction's `sourceIdentifier`.
    func listMonitorDidChange(_ monitor: ListMonitor<ListEntityType>, sourceIdentifier: Any?)
    /// ``listMonitorWillRefetch(_:)`` with the `sourceIdentifier` given to `refetch`.
    func listMonitorWillRefetch(_ monitor: ListMonitor<ListEntityType>, sourceIdentifier: Any?)
    /// ``listMonitorDidRefetch(_:)`` with the `sourceIdentifier` given to `refetch`.
    func listMonitorDidRefetch(_ monitor: ListMonitor<ListEntityType>, sourceIdentifier: Any?)
}

extension ListObserver {
    /// Does nothing.
    public func listMonitorWillChange(_ monitor: ListMonitor<ListEntityType>) {}
    /// Does nothing.
    public func listMonitorDidChange(_ monitor: ListMonitor<ListEntityType>) {}
    /// Does nothing.
    public func listMonitorWillRefetch(_ monitor: ListMonitor<ListEntityType>) {}
    /// Does nothing.
    public func listMonitorDidRefetch(_ monitor: ListMonitor<ListEntityType>) {}
    /// Calls ``listMonitorWillChange(_:)``.
    public func listMonitorWillChange(_ monitor: ListMonitor<ListEntityType>, sourceIdentifier: Any?) { listMonitorWillChange(monitor) }
    /// Calls ``listMonitorDidChange(_:)``.
    public func listMonitorDidChange(_ monitor: ListMonitor<ListEntityType>, sourceIdentifier: Any?) { listMonitorDidChange(monitor) }
    /// Calls ``listMonitorWillRefetch(_:)``.
    public func listMonitorWillRefetch(_ monitor: ListMonitor<ListEntityType>, sourceIdentifier: Any?) { listMonitorWillRefetch(monitor) }
    /// Calls ``listMonitorDidRefetch(_:)``.
    public func listMonitorDidRefetch(_ monitor: ListMonitor<ListEntityType>, sourceIdentifier: Any?) { listMonitorDidRefetch(monitor) }
}

/// Also told about each object a commit inserts into, deletes from, moves in or updates in the
/// list. Deletions are located in the old list; everything else in the new one.
public protocol ListObjectObserver: ListObserver {
    /// `object` joined the list at `indexPath`.
    func listMonitor(_ monitor: ListMonitor<ListEntityType>, didInsertObject object: ListEntityType, toIndexPath indexPath: IndexPath)
    /// `object` left the list from `indexPath` (it may have been deleted: then it shows its last values).
    func listMonitor(_ monitor: ListMonitor<ListEntityType>, didDeleteObject object: ListEntityType, fromIndexPath indexPath: IndexPath)
    /// `object`'s stored values changed; it stays at `indexPath`.
    func listMonitor(_ monitor: ListMonitor<ListEntityType>, didUpdateObject object: ListEntityType, atIndexPath indexPath: IndexPath)
    /// `object` moved from `fromIndexPath` (old list) to `toIndexPath` (new list).
    func listMonitor(_ monitor: ListMonitor<ListEntityType>, didMoveObject object: ListEntityType, fromIndexPath: IndexPath, toIndexPath: IndexPath)

    /// The insertion, with the committing transaction's `sourceIdentifier`.
    func listMonitor(_ monitor: ListMonitor<ListEntityType>, didInsertObject object: ListEntityType, toIndexPath indexPath: IndexPath, sourceIdentifier: Any?)
    /// The deletion, with the committing transaction's `sourceIdentifier`.
    func listMonitor(_ monitor: ListMonitor<ListEntityType>, didDeleteObject object: ListEntityType, fromIndexPath indexPath: IndexPath, sourceIdentifier: Any?)
    /// The update, with the committing transaction's `sourceIdentifier`.
    func listMonitor(_ monitor: ListMonitor<ListEntityType>, didUpdateObject object: ListEntityType, atIndexPath indexPath: IndexPath, sourceIdentifier: Any?)
    /// The move, with the committing transaction's `sourceIdentifier`.
    func listMonitor(_ monitor: ListMonitor<ListEntityType>, didMoveObject object: ListEntityType, fromIndexPath: IndexPath, toIndexPath: IndexPath, sourceIdentifier: Any?)
}

extension ListObjectObserver {
    /// Does nothing.
    public func listMonitor(_ monitor: ListMonitor<ListEntityType>, didInsertObject object: ListEntityType, toIndexPath indexPath: IndexPath) {}
    /// Does nothing.
    public func listMonitor(_ monitor: ListMonitor<ListEntityType>, didDeleteObject object: ListEntityType, fromIndexPath indexPath: IndexPath) {}
    /// Does nothing.
    public func listMonitor(_ monitor: ListMonitor<ListEntityType>, didUpdateObject object: ListEntityType, atIndexPath indexPath: IndexPath) {}
    /// Does nothing.
    public func listMonitor(_ monitor: ListMonitor<ListEntityType>, didMoveObject object: ListEntityType, fromIndexPath: IndexPath, toIndexPath: IndexPath) {}
    /// Calls the form without `sourceIdentifier`.
    public func listMonitor(_ monitor: ListMonitor<ListEntityType>, didInsertObject object: ListEntityType, toIndexPath indexPath: IndexPath, sourceIdentifier: Any?) {
        listMonitor(monitor, didInsertObject: object, toIndexPath: indexPath)
    }
    /// Calls the form without `sourceIdentifier`.
    public func listMonitor(_ monitor: ListMonitor<ListEntityType>, didDeleteObject object: ListEntityType, fromIndexPath indexPath: IndexPath, sourceIdentifier: Any?) {
        listMonitor(monitor, didDeleteObject: object, fromIndexPath: indexPath)
    }
    /// Calls the form without `sourceIdentifier`.
    public func listMonitor(_ monitor: ListMonitor<ListEntityType>, didUpdateObject object: ListEntityType, atIndexPath indexPath: IndexPath, sourceIdentifier: Any?) {
        listMonitor(monitor, didUpdateObject: object, atIndexPath: indexPath)
    }
    /// Calls the form without `sourceIdentifier`.
    public func listMonitor(_ monitor: ListMonitor<ListEntityType>, didMoveObject object: ListEntityType, fromIndexPath: IndexPath, toIndexPath: IndexPath, sourceIdentifier: Any?) {
        listMonitor(monitor, didMoveObject: object, fromIndexPath: fromIndexPath, toIndexPath: toIndexPath)
    }
}

/// Also told when a sectioned list gains or loses a section. A section's insertion is reported
/// before the insertion of its first objects; its deletion after the deletion of its last ones.
public protocol ListSectionObserver: ListObjectObserver {
    /// A section appeared at `sectionIndex` (new list).
    func listMonitor(_ monitor: ListMonitor<ListEntityType>, didInsertSection sectionInfo: ListMonitor<ListEntityType>.SectionInfo, toSectionIndex sectionIndex: Int)
    /// A section disappeared from `sectionIndex` (old list).
    func listMonitor(_ monitor: ListMonitor<ListEntityType>, didDeleteSection sectionInfo: ListMonitor<ListEntityType>.SectionInfo, fromSectionIndex sectionIndex: Int)
}

extension ListSectionObserver {
    /// Does nothing.
    public func listMonitor(_ monitor: ListMonitor<ListEntityType>, didInsertSection sectionInfo: ListMonitor<ListEntityType>.SectionInfo, toSectionIndex sectionIndex: Int) {}
    /// Does nothing.
    public func listMonitor(_ monitor: ListMonitor<ListEntityType>, didDeleteSection sectionInfo: ListMonitor<ListEntityType>.SectionInfo, fromSectionIndex sectionIndex: Int) {}
}
