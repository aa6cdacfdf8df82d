extension Array {
    /// `count` copies of `value`: what `Array(repeating:count:)` makes, without its fixed cost
    /// for a short array.
    ///
    /// That initializer allocates through a standard-library function which, for an element
    /// type the library has no prespecialized metadata for (``Value``, `Bool`, an optional, a
    /// struct of this package), looks the array type up at run time: some 650 instructions a
    /// call with Swift 6.3, more than filling a short array, and paid by every scan, plan or
    /// insert that makes one. Up to ``filledByAppendingLimit`` elements are appended to a
    /// reserved array instead, which the compiler specializes; a longer array, beside which the
    /// lookup is small, comes from the initializer.
    @inlinable
    package init(filledWith value: Element, count: Int) {
        if count > Self.filledByAppendingLimit {
            self.init(repeating: value, count: count)
            return
        }
        self.init()
        reserveCapacity(count)
        for _ in 0..<count { append(value) }
    }

    /// The longest array ``init(filledWith:count:)`` fills by appending.
    @inlinable
    package static var filledByAppendingLimit: Int { 256 }
}
