import CoreStoreStorage

/// A run of consecutive list members that share the value of the section key.
struct ListSectionRun: Sendable {
    /// The section key's value shared by the run (`.null` for the one section of an
    /// unsectioned list).
    var key: Value
    /// The section's name.
    var name: String?
    /// How many members it holds.
    var count: Int
}
