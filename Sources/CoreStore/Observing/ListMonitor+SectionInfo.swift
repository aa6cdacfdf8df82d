extension ListMonitor {
    /// One section of a monitored list: its name, index title and objects.
    public struct SectionInfo {
        /// The section's name (see ``SectionBy/sectionName(for:)``); `nil` for the one section
        /// of an unsectioned list and for objects whose section value is `nil`.
        public let name: String?
        /// The name after the ``SectionBy/sectionIndexTransformer``.
        public let indexTitle: String?
        /// How many objects the section holds (0 for a deleted section).
        public let numberOfObjects: Int
        private let load: () -> [O]

        init(name: String?, indexTitle: String?, numberOfObjects: Int, load: @escaping () -> [O]) {
            self.name = name
            self.indexTitle = indexTitle
            self.numberOfObjects = numberOfObjects
            self.load = load
        }

        /// The section's objects, in order (read when asked; empty for a deleted section).
        public var objects: [O] { load() }
    }
}
