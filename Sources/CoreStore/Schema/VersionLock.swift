/// The expected hash of every entity of a model version, written in source so that an
/// accidental change to a shipped model is caught before it reaches users' data.
///
/// Paste the literal the framework logs for a schema without a lock:
/// ```swift
/// CoreStoreSchema(
///     modelVersion: "V1",
///     entities: [Entity<Person>("Person")],
///     versionLock: [
///         "Person": [0x1b59d511019695cf, 0xdeb97e86c5eff179, 0x1cd7b19b9ef5ff10, 0x1f2b9b4b3d9cbdf1]
///     ]
/// )
/// ```
/// Each entity's hash is the SHA-256 of its canonical description (see
/// ``CoreStoreSchema/canonicalDescription(ofEntity:)``), as four 64-bit words.
public struct VersionLock: ExpressibleByDictionaryLiteral, Hashable, Sendable, CustomStringConvertible {
    /// The hash of each entity by name.
    public let hashesByEntityName: [String: [UInt64]]

    /// Creates a lock from entity names and their hashes.
    public init(_ hashesByEntityName: [String: [UInt64]]) {
        self.hashesByEntityName = hashesByEntityName
    }

    /// Creates a lock from a dictionary literal.
    public init(dictionaryLiteral elements: (String, [UInt64])...) {
        var hashes: [String: [UInt64]] = [:]
        for (name, words) in elements { hashes[name] = words }
        self.hashesByEntityName = hashes
    }

    /// The Swift literal of this lock, ready to paste as `versionLock:`.
    public var description: String {
        let lines = hashesByEntityName.keys.sorted().map { name -> String in
            let words = (hashesByEntityName[name] ?? []).map { word -> String in
                let hex = String(word, radix: 16)
                return "0x" + String(repeating: "0", count: max(0, 16 - hex.count)) + hex
            }
            return "    \"\(name)\": [\(words.joined(separator: ", "))]"
        }
        return "[\n" + lines.joined(separator: ",\n") + "\n]"
    }
}
