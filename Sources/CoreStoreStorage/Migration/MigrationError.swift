/// A migration step that cannot be mapped, or a record that does not fit the destination.
///
/// Mapping errors are found before anything is written (when the step is forecast); record
/// errors while the step runs, which then leaves the store as it was.
public struct MigrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The version the step starts from.
    public var sourceVersion: ModelVersion
    /// The version the step ends at.
    public var destinationVersion: ModelVersion
    /// What cannot be migrated, as a sentence.
    public var reason: String

    /// Creates an error.
    public init(sourceVersion: ModelVersion, destinationVersion: ModelVersion, reason: String) {
        self.sourceVersion = sourceVersion
        self.destinationVersion = destinationVersion
        self.reason = reason
    }

    /// `Cannot migrate from 'V1' to 'V2': <reason>`.
    public var description: String {
        "Cannot migrate from '\(sourceVersion)' to '\(destinationVersion)': \(reason)"
    }
}
