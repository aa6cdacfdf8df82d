/// A failure reported by a raw engine's C API, carrying the engine's own message.
struct RawEngineError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
