import Foundation
import CoreStoreStorage

/// Groups the objects of a list into sections by the value of one attribute, for list monitors
/// and publishers.
///
/// ```swift
/// SectionBy<Person>(\.$age)
/// SectionBy<Person>("lastInitial", sectionIndexTransformer: { $0?.uppercased() })
/// ```
/// A section's name is its attribute's value as text (see ``sectionName(for:)``); objects whose
/// value is `nil` share the section named `nil`. The list must be ordered by the section key
/// first so that each section is contiguous; monitors check this when they start.
public struct SectionBy<O: CoreStoreObject> {
    /// The stored key of the attribute whose value names each object's section.
    public let sectionKeyPath: String

    /// Turns a section name into its index title (for a section index); `nil` leaves the
    /// section out of the index.
    public let sectionIndexTransformer: @Sendable (_ sectionName: String?) -> String?

    /// Sections by a stored key.
    public init(_ sectionKeyPath: String, sectionIndexTransformer: @escaping @Sendable (_ sectionName: String?) -> String? = { $0 }) {
        self.sectionKeyPath = sectionKeyPath
        self.sectionIndexTransformer = sectionIndexTransformer
    }

    /// Sections by a field.
    public init<V: FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, sectionIndexTransformer: @escaping @Sendable (_ sectionName: String?) -> String? = { $0 }) {
        self.init(FieldKeys.key(keyPath, on: O.self), sectionIndexTransformer: sectionIndexTransformer)
    }

    /// The name of the section that holds objects whose section attribute is `value`: `nil`
    /// for a `nil` value, `true`/`false` for booleans, the decimal form of numbers, the text of
    /// strings, ISO 8601 with fractional seconds for dates, the uppercase form of UUIDs and the
    /// lowercase hexadecimal form of data.
    public func sectionName(for value: Value) -> String? {
        ListSectionName.name(for: value)
    }
}
