extension Array {
    /// Calls `body` with the address of each element, in order, within one access to the
    /// array's buffer.
    ///
    /// For loops that read records where they lie: an element passed by value (from
    /// `for element in`, a subscript, or even a buffer pointer's subscript) is copied for the
    /// call, its strings and arrays retained and released, which a commit of thousands of records
    /// paid once per record and per pass.
    @inlinable
    package func forEachElementAddress(_ body: (UnsafePointer<Element>) throws -> Void) rethrows {
        try withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for offset in 0..<buffer.count { try body(base + offset) }
        }
    }
}
