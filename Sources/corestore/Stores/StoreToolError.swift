/// A failure of a store tool (`inspect`, `dump`, …), printed as one line on standard error; the
/// command then exits with a non-zero status.
struct StoreToolError: Error, CustomStringConvertible {
    /// What went wrong, for a person.
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
