import Foundation

extension ListMonitor {
    /// The number of sections (an unsectioned list always has one).
    public func numberOfSections() -> Int {
        withState { $0.sections.count }
    }

    /// The number of objects in all sections.
    public func numberOfObjects() -> Int {
        withState { $0.entries.count }
    }

    /// The number of objects in a section; 0 when there is no such section.
    public func numberOfObjects(in section: Int) -> Int {
        withState { $0.sections.indices.contains(section) ? $0.sections[section].count : 0 }
    }

    /// Whether the list holds any object.
    public func hasObjects() -> Bool {
        numberOfObjects() > 0
    }

    /// Whether a section holds any object.
    public func hasObjects(in section: Int) -> Bool {
        numberOfObjects(in: section) > 0
    }

    /// The object at a position counted across all sections, or `nil` when out of range.
    public subscript(index: Int) -> O? {
        guard let id = withState({ $0.entries.indices.contains(index) ? $0.entries[index].id : nil }) else { return nil }
        return objects(for: [id]).first
    }

    /// The object at a position, or `nil` when out of range (kept for CoreStore users).
    public subscript(safeIndex index: Int) -> O? {
        self[index]
    }

    /// The object at `itemIndex` of section `sectionIndex`, or `nil` when out of range.
    public subscript(sectionIndex: Int, itemIndex: Int) -> O? {
        self[IndexPath(indexes: [sectionIndex, itemIndex])]
    }

    /// The object at an index path `[section, item]`, or `nil` when out of range.
    public subscript(indexPath: IndexPath) -> O? {
        guard let id = withState({ state in state.flatIndex(for: indexPath).map { state.entries[$0].id } }) else { return nil }
        return objects(for: [id]).first
    }

    /// Every object, section after section.
    public func objectsInAllSections() -> [O] {
        objects(for: withState { $0.entries.map(\.id) })
    }

    /// The objects of a section; empty when there is no such section.
    public func objects(in section: Int) -> [O] {
        objects(for: withState { state in
            guard state.sections.indices.contains(section) else { return [] }
            let start = state.sectionStarts[section]
            return state.entries[start..<start + state.sections[section].count].map(\.id)
        })
    }

    /// A section's name, index title and objects; `nil` when there is no such section.
    public func sectionInfo(at section: Int) -> SectionInfo? {
        guard let run = withState({ $0.sections.indices.contains(section) ? $0.sections[section] : nil }) else { return nil }
        return SectionInfo(
            name: run.name, indexTitle: sectionBy?.sectionIndexTransformer(run.name), numberOfObjects: run.count,
            load: { [self] in objects(in: section) }
        )
    }

    /// Every section.
    public func sections() -> [SectionInfo] {
        (0..<numberOfSections()).compactMap { sectionInfo(at: $0) }
    }

    /// The index titles of the sections whose transformer gives one, in section order.
    public func sectionIndexTitles() -> [String] {
        guard let sectionBy else { return [] }
        return withState { $0.sections.compactMap { sectionBy.sectionIndexTransformer($0.name) } }
    }

    /// The position of an object counted across all sections, or `nil` when it is not listed.
    public func index(of object: O) -> Int? {
        guard let id = object.cs_id() else { return nil }
        return withState { $0.flatIndex(of: id) }
    }

    /// The index path `[section, item]` of an object, or `nil` when it is not listed.
    public func indexPath(of object: O) -> IndexPath? {
        guard let id = object.cs_id() else { return nil }
        return withState { state in state.flatIndex(of: id).map { state.indexPath(forFlatIndex: $0) } }
    }

    /// The identifiers of the listed objects, section after section.
    public func objectIDsInAllSections() -> [ObjectID] {
        withState { $0.entries.map(\.id) }
    }
}
