extension Array {
    /// The array cut into consecutive pieces of at most `size` elements (databases limit the
    /// number of parameters of one statement).
    package func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
