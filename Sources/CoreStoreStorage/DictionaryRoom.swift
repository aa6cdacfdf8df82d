extension Dictionary {
    /// Makes room for `additional` more entries, growing the table at most once.
    ///
    /// The standard library's `reserveCapacity(_:)` is called unspecialized here: it looks up
    /// the dictionary's type metadata and copies even an empty dictionary's storage, several
    /// hundred instructions a call, which a small commit paid four times. This builds a new
    /// table only when one is needed, through the initializer the compiler specializes.
    @inlinable
    package mutating func makeRoom(forAdditional additional: Int) {
        guard additional > 0 else { return }
        if isEmpty {
            self = Dictionary(minimumCapacity: additional)
        } else if capacity < count + additional {
            var grown = Dictionary(minimumCapacity: count + additional)
            for (key, value) in self { grown[key] = value }
            self = grown
        }
    }
}
