/// A record of the destination model version being created by a migration transformer. Set
/// attributes and relationships by key; unset attributes keep their default values and unset
/// relationships keep what the source object's relationships map to.
///
/// Valid only while the transformer runs. A value of the wrong type, or an unknown key, makes
/// the migration fail with a ``MigrationError`` once the transformer returns.
public final class UnsafeDestinationObject {
    /// The identity the record will have in the migrated store.
    public let recordID: RecordID
    /// The destination entity of the record.
    public let entity: EntityDescription
    var attributes: [Value]
    /// Relationships set by the transformer, by ordinal.
    var relationshipOverrides: [Int: [RelationshipTarget]] = [:]
    /// The first invalid assignment, reported after the transformer returns.
    var assignmentError: String?
    /// The source record and its plan, for the inferred values (computed only when asked for).
    private let source: Record
    private let plan: EntityPlan

    /// A relationship destination set by a transformer.
    enum RelationshipTarget {
        /// A source object: it points at whatever that object migrates to.
        case source(RecordID)
        /// An object created in this migration.
        case destination(RecordID)
    }

    init(recordID: RecordID, source: Record, plan: EntityPlan) {
        self.recordID = recordID
        self.entity = plan.destinationEntity
        self.attributes = plan.defaultValues
        self.source = source
        self.plan = plan
    }

    /// The value of the attribute `attribute` as a Swift value, or the destinations of the
    /// relationship `attribute` set so far; `nil` for no value. Assign `nil`, a Swift value of the
    /// attribute's type, or — for a relationship — an `UnsafeSourceObject`,
    /// `UnsafeDestinationObject` or an array or set of them.
    public subscript(attribute: String) -> Any? {
        get {
            if let ordinal = plan.destinationOrdinal(ofAttribute: attribute) {
                return attributes[ordinal].anyValue(as: plan.destinationTypes[ordinal])
            }
            return nil
        }
        set {
            if let ordinal = plan.destinationOrdinal(ofAttribute: attribute) {
                let type = plan.destinationTypes[ordinal]
                guard let value = Value(any: newValue, as: type) else {
                    fail("\(Swift.type(of: newValue as Any)) is not a value of attribute '\(entity.name).\(attribute)' (\(type.rawValue))")
                    return
                }
                attributes[ordinal] = value
            } else if let ordinal = plan.destinationOrdinal(ofRelationship: attribute) {
                guard let targets = Self.targets(newValue) else {
                    fail("\(type(of: newValue as Any)) is not a destination of relationship '\(entity.name).\(attribute)'")
                    return
                }
                relationshipOverrides[ordinal] = targets
            } else {
                fail("'\(entity.name)' has no attribute or relationship '\(attribute)'")
            }
        }
    }

    /// The value of `attribute` (see ``subscript(_:)``).
    public subscript(attribute: AttributeDescription) -> Any? {
        get { self[attribute.name] }
        set { self[attribute.name] = newValue }
    }

    /// Calls `closure` with every destination attribute and the source attribute it is inferred
    /// from (`nil` for an attribute new in this version).
    public func enumerateAttributes(_ closure: (_ attribute: AttributeDescription, _ sourceAttribute: AttributeDescription?) -> Void) {
        for (ordinal, attribute) in entity.attributes.enumerated() {
            closure(attribute, plan.sourceAttributes[ordinal])
        }
    }

    /// Sets every attribute to its inferred value (what `CustomMapping.inferredTransformation` does).
    func applyInferredAttributes() {
        attributes = plan.inferredAttributes(of: source)
    }

    private func fail(_ message: String) {
        if assignmentError == nil { assignmentError = message }
    }

    private static func targets(_ value: Any?) -> [RelationshipTarget]? {
        guard let value else { return [] }
        if let optional = value as? any OptionalProtocol {
            return targets(optional.wrappedAny)
        }
        switch value {
        case let object as UnsafeSourceObject: return [.source(object.recordID)]
        case let object as UnsafeDestinationObject: return [.destination(object.recordID)]
        case let objects as [UnsafeSourceObject]: return objects.map { .source($0.recordID) }
        case let objects as [UnsafeDestinationObject]: return objects.map { .destination($0.recordID) }
        case let objects as [Any]:
            var result: [RelationshipTarget] = []
            for object in objects {
                guard let target = targets(object), target.count == 1 else { return nil }
                result += target
            }
            return result
        case let objects as any Sequence:
            return targets(Array(objects.map { $0 as Any }))
        default: return nil
        }
    }
}
