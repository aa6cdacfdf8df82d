import Foundation
import CLevelDB
import CoreStoreStorage

/// Turns LevelDB's error strings (`char** errptr`, a `leveldb::Status` as text) into
/// ``StorageError``s. The code is the status kind, as in `leveldb::Status::Code`.
enum LevelDBStatus {
    /// `leveldb::Status::Code` values, recovered from the message prefix.
    enum Code: Int {
        case unknown = 0
        case notFound = 1
        case corruption = 2
        case notSupported = 3
        case invalidArgument = 4
        case ioError = 5
    }

    /// Runs `body` with an error pointer; throws when LevelDB set it, freeing the message.
    static func call<R>(_ context: @autoclosure () -> String, _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> R) throws -> R {
        let (result, message) = capture(body)
        if let message { throw error(message, context()) }
        return result
    }

    /// Runs `body` with an error pointer; returns its result and LevelDB's message, if any.
    static func capture<R>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> R) -> (R, String?) {
        var error: UnsafeMutablePointer<CChar>?
        let result = body(&error)
        guard let error else { return (result, nil) }
        let message = String(cString: error)
        leveldb_free(error)
        return (result, message)
    }

    /// `.engine` with the status kind as code and `message` after `context`.
    static func error(_ message: String, _ context: String) -> StorageError {
        .engine(code: code(of: message).rawValue, message: "\(context): \(message)")
    }

    /// Like ``error(_:_:)``, naming the cases a caller can act on: a held `LOCK` (LevelDB says
    /// `IO error: lock …`), and a database LevelDB finds damaged or made with another comparator
    /// (`incompatibleStore`).
    static func explain(_ message: String, path: String, context: String) -> StorageError {
        switch code(of: message) {
        case .ioError where message.hasPrefix("IO error: lock "):
            return .engine(code: Code.ioError.rawValue, message: "the LevelDB database \(path) is in use by another process or open handle (LevelDB: \(message))")
        case .corruption, .invalidArgument:
            return .incompatibleStore(path: path, reason: "LevelDB reports: \(message)")
        default:
            return error(message, context)
        }
    }

    /// The status kind named at the start of a LevelDB message.
    static func code(of message: String) -> Code {
        let prefixes: [(String, Code)] = [
            ("NotFound: ", .notFound), ("Corruption: ", .corruption), ("Not implemented: ", .notSupported),
            ("Invalid argument: ", .invalidArgument), ("IO error: ", .ioError),
        ]
        return prefixes.first { message.hasPrefix($0.0) }?.1 ?? .unknown
    }
}
