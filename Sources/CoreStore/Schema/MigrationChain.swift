/// The order of model versions for progressive migrations: a list (`["V1", "V2", "V3"]`), a tree
/// of version → next version (`["V1": "V3", "V2": "V3"]`), a single version, or `nil` (no
/// progressive migration: a store migrates straight to the current version).
///
/// A chain is checked when it is made: a version listed twice, a version with two next versions,
/// a loop, or more than one final version make it invalid (``validationError``), and a
/// `DataStack` with an invalid chain refuses to add stores with ``CoreStoreError/invalidSchema(message:)``.
public struct MigrationChain: ExpressibleByNilLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, Sendable, Hashable {
    /// The next version of each version.
    public let nextVersions: [String: String]
    /// Every version the chain mentions.
    public let versions: Set<String>
    /// The version at the end of every path, when the chain is valid and not empty.
    public let leafVersion: String?
    /// Why the chain is invalid, `nil` when it is valid.
    public let validationError: String?

    /// No chain.
    public init() {
        self.init(pairs: [], versions: [], duplicate: nil)
    }

    /// No chain.
    public init(nilLiteral: ()) {
        self.init()
    }

    /// A chain of one version (no migration).
    public init(_ value: String) {
        self.init(pairs: [], versions: [value], duplicate: nil)
    }

    /// A chain of one version (no migration).
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// A linear chain: each version migrates to the one after it.
    public init<T: Collection>(_ elements: T) where T.Element == String {
        let list = Array(elements)
        let duplicate = Self.firstDuplicate(list)
        self.init(pairs: Array(zip(list, list.dropFirst())), versions: Set(list), duplicate: duplicate.map { "version '\($0)' appears twice" })
    }

    /// A linear chain: each version migrates to the one after it.
    public init(arrayLiteral elements: String...) {
        self.init(elements)
    }

    /// A tree of version → next version pairs.
    public init(_ elements: [(String, String)]) {
        let duplicate = Self.firstDuplicate(elements.map(\.0))
        self.init(pairs: elements, versions: Set(elements.flatMap { [$0.0, $0.1] }), duplicate: duplicate.map { "version '\($0)' has more than one next version" })
    }

    /// A tree of version → next version.
    public init(_ dictionary: [String: String]) {
        self.init(dictionary.map { ($0.key, $0.value) })
    }

    /// A tree of version → next version.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    private init(pairs: [(String, String)], versions: Set<String>, duplicate: String?) {
        var next: [String: String] = [:]
        for (from, to) in pairs where next[from] == nil { next[from] = to }
        self.nextVersions = next
        self.versions = versions
        var problem = duplicate
        if problem == nil, let loop = Self.firstLoop(next) {
            problem = "the versions \(loop.map { "'\($0)'" }.joined(separator: " → ")) form a loop"
        }
        let leaves = versions.filter { next[$0] == nil }.sorted()
        if problem == nil, leaves.count > 1 {
            problem = "it ends in more than one version (\(leaves.map { "'\($0)'" }.joined(separator: ", ")))"
        }
        self.validationError = problem.map { "Invalid MigrationChain: \($0)." }
        self.leafVersion = problem == nil && leaves.count == 1 ? leaves[0] : nil
    }

    /// Whether the chain names no versions (no progressive migration).
    public var isEmpty: Bool { versions.isEmpty }

    /// Whether the chain is usable.
    public var isValid: Bool { validationError == nil }

    /// Whether the chain mentions `version`.
    public func contains(_ version: String) -> Bool { versions.contains(version) }

    /// The versions from `version` to the leaf, both included; `nil` when the chain does not
    /// mention `version`.
    public func path(from version: String) -> [String]? {
        guard versions.contains(version) else { return nil }
        var path = [version]
        var seen: Set<String> = [version]
        while let next = nextVersions[path[path.count - 1]], seen.insert(next).inserted {
            path.append(next)
        }
        return path
    }

    private static func firstDuplicate(_ list: [String]) -> String? {
        var seen: Set<String> = []
        return list.first { !seen.insert($0).inserted }
    }

    private static func firstLoop(_ next: [String: String]) -> [String]? {
        for start in next.keys.sorted() {
            var path = [start]
            var current = start
            while let following = next[current] {
                if let index = path.firstIndex(of: following) { return Array(path[index...]) + [following] }
                path.append(following)
                current = following
            }
        }
        return nil
    }

    /// Equal when the pairs and versions are.
    public static func == (lhs: MigrationChain, rhs: MigrationChain) -> Bool {
        lhs.nextVersions == rhs.nextVersions && lhs.versions == rhs.versions
    }

    /// Hashes the pairs and versions.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(nextVersions)
        hasher.combine(versions)
    }
}
