import Foundation

/// What one commit changed in a monitored list, in the order observers are told.
///
/// Index paths are `[section, item]`. Deleted objects and deleted sections are located in the
/// list as it was before the commit; inserted objects, inserted sections, move targets and
/// updated objects in the list as it is after it.
public struct ListChanges: Sendable, Equatable {
    /// An object that was deleted, inserted or updated, and where.
    public struct ObjectChange: Sendable, Equatable {
        /// The object.
        public let objectID: ObjectID
        /// Its index path (old list for deletes, new list otherwise).
        public let indexPath: IndexPath
    }

    /// An object whose position changed.
    public struct ObjectMove: Sendable, Equatable {
        /// The object.
        public let objectID: ObjectID
        /// Where it was in the old list.
        public let fromIndexPath: IndexPath
        /// Where it is in the new list.
        public let toIndexPath: IndexPath
    }

    /// A section that appeared or disappeared.
    public struct SectionChange: Sendable, Equatable {
        /// The section's name (see ``SectionBy/sectionName(for:)``).
        public let name: String?
        /// Its index (old list for deletes, new list for inserts).
        public let sectionIndex: Int
    }

    /// Objects that left the list, by old index path.
    public internal(set) var deletedObjects: [ObjectChange] = []
    /// Sections that became empty, by old index.
    public internal(set) var deletedSections: [SectionChange] = []
    /// Sections that appeared, by new index.
    public internal(set) var insertedSections: [SectionChange] = []
    /// Objects that joined the list, by new index path.
    public internal(set) var insertedObjects: [ObjectChange] = []
    /// Objects that changed position (including across sections that both survive).
    public internal(set) var movedObjects: [ObjectMove] = []
    /// Objects whose stored values changed without moving, by new index path.
    public internal(set) var updatedObjects: [ObjectChange] = []

    /// Whether the monitor fetched its list anew (`ListMonitor.refetch(_:sourceIdentifier:)`);
    /// no object or section changes are listed then.
    public internal(set) var isRefetch = false

    /// Whether the commit left the list exactly as it was.
    public var isEmpty: Bool {
        deletedObjects.isEmpty && deletedSections.isEmpty && insertedSections.isEmpty
            && insertedObjects.isEmpty && movedObjects.isEmpty && updatedObjects.isEmpty
    }
}
