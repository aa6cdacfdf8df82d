/// Values keyed by entity name, for the lookups made once per record written or read (its
/// record-key prefix, its index plans, its shape). A schema usually has few entities, and the
/// name asked is usually the schema's own string: comparing it with each name (equal strings
/// sharing their storage compare in a few instructions) costs less than hashing it. Past
/// ``scanLimit`` entities the names are hashed.
struct EntityNameMap<Value: Sendable>: Sendable {
    /// The names, in the order of ``values``.
    private let names: [String]
    /// The value of each name.
    private let values: [Value]
    /// The index of each name, for schemas of more than ``scanLimit`` entities.
    private let hashed: [String: Int]?

    /// The most names found by comparing them one by one.
    static var scanLimit: Int { 8 }

    /// The map holding `dictionary`'s pairs.
    init(_ dictionary: [String: Value]) {
        names = Array(dictionary.keys)
        values = Array(dictionary.values)
        hashed = names.count > Self.scanLimit ? Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) }) : nil
    }

    /// The value of `name`, `nil` for a name the map lacks.
    subscript(name: String) -> Value? {
        if let hashed { return hashed[name].map { values[$0] } }
        var i = 0
        while i < names.count {
            if names[i] == name { return values[i] }
            i += 1
        }
        return nil
    }
}
