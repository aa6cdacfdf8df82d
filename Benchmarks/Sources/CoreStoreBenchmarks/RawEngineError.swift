/// A failure reported by a raw engine's C API.
struct RawEngineError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
