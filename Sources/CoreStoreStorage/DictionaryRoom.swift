extension Dictionary {
    /// Makes room for `additional` more entries, growing the table at most once.
    ///
    /// The standard library's `reserveCapacity(_:)` is called unspecialized here: it looks up
    /// the dictionary's type metadata and copies even an empty dictionary's storage, several
    /// hundred instructions a call, which a small commit paid four times. This calls it only
    /// when the table must grow, and sizes an empty one through the specialized initializer.
    @inlinable
    package mutating func makeRoom(forAdditional additional: Int) {
        guard additional > 0 else { return }
        if isEmpty {
            self = Dictionary(minimumCapacity: additional)
        } else if capacity < count + additional {
            reserveCapacity(count + additional)
        }
    }
}
