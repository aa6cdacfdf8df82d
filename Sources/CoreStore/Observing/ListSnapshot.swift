import Foundation

/// The objects of a published list at one moment, as identifiers grouped into sections: a
/// `Sendable` value, ready for diffing (section and item identifiers are `Hashable`).
///
/// Its elements are ``ObjectPublisher``s of the listed objects, in order across sections:
/// `snapshot[0].snapshot?.$name`.
public struct ListSnapshot<O: CoreStoreObject>: RandomAccessCollection, Sendable, Hashable {
    /// One section: its identifier (the section name), index title and items.
    public struct Section: Sendable, Hashable, Identifiable {
        /// The section's name; `nil` for the one section of an unsectioned list.
        public let id: String?
        /// The section's index title.
        public let indexTitle: String?
        /// The identifiers of its objects, in order.
        public let itemIDs: [ObjectID]
    }

    /// The sections, in order.
    public let sections: [Section]
    /// Every item identifier, section after section.
    public let itemIDs: [ObjectID]
    let dataStack: DataStack

    init(sections: [Section], dataStack: DataStack) {
        self.sections = sections
        self.itemIDs = sections.flatMap(\.itemIDs)
        self.dataStack = dataStack
    }

    /// The section identifiers, in order.
    public var sectionIDs: [String?] { sections.map(\.id) }
    /// The number of sections.
    public var numberOfSections: Int { sections.count }
    /// The number of objects.
    public var numberOfItems: Int { itemIDs.count }

    /// The item identifiers of a section; empty when there is no such section.
    public func itemIDs(inSectionAt index: Int) -> [ObjectID] {
        sections.indices.contains(index) ? sections[index].itemIDs : []
    }

    /// The position of an item across sections, or `nil`.
    public func index(ofItemID itemID: ObjectID) -> Int? {
        itemIDs.firstIndex(of: itemID)
    }

    /// The index path `[section, item]` of an item, or `nil`.
    public func indexPath(ofItemID itemID: ObjectID) -> IndexPath? {
        for (s, section) in sections.enumerated() {
            if let item = section.itemIDs.firstIndex(of: itemID) { return IndexPath(item: item, section: s) }
        }
        return nil
    }

    /// The first position.
    public var startIndex: Int { 0 }
    /// One past the last position.
    public var endIndex: Int { itemIDs.count }

    /// A publisher of the object at a position.
    public subscript(position: Int) -> ObjectPublisher<O> {
        ObjectPublisher(dataStack: dataStack, objectID: itemIDs[position])
    }

    /// A publisher of the object at `[section, item]`, or `nil` when out of range.
    public subscript(indexPath: IndexPath) -> ObjectPublisher<O>? {
        guard indexPath.count == 2, sections.indices.contains(indexPath.section),
              sections[indexPath.section].itemIDs.indices.contains(indexPath.item) else { return nil }
        return ObjectPublisher(dataStack: dataStack, objectID: sections[indexPath.section].itemIDs[indexPath.item])
    }

    /// Equal when the sections and items are equal.
    public static func == (lhs: ListSnapshot, rhs: ListSnapshot) -> Bool {
        lhs.sections == rhs.sections
    }

    /// Hashes the sections.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(sections)
    }
}
