import Foundation
import Testing
@testable import CoreStore

/// A model written as CoreStore users write it: accessor closures whose parameter types Swift
/// infers from the enclosing class (`Field` is `FieldContainer<Self>` inside it), a cached
/// display name that the name and title setters clear, and dependent keys computed by a static
/// function that itself names fields of the class.
class Badge: CoreStoreObject {
    @Field.Stored("title", customSetter: { (object, field, newValue) in
        field.primitiveValue = newValue
        object.$caption.primitiveValue = nil
    })
    var title: String = "Dr."

    @Field.Stored("holder", customSetter: { (object, field, newValue) in
        field.primitiveValue = newValue
        object.$caption.primitiveValue = nil
    })
    var holder: String = ""

    // A getter that reads the fields whose setters mention it is a function with its types
    // spelled out: two closures that refer to each other's fields cannot infer each other.
    @Field.Virtual("caption", customGetter: Badge.caption(_:_:), affectedByKeyPaths: Badge.keysAffectingCaption())
    var caption: String?

    @Field.Virtual("scratch", customGetter: { (_, field) in field.primitiveValue ?? [] })
    var scratch: [Int]

    @Field.Coded("level", coder: (encode: { Data([$0]) }, decode: { $0?.first ?? 1 }), dynamicInitialValue: { 3 })
    var level: UInt8

    /// The cached caption, or a new one made from the title and the holder (then cached).
    static func caption(_ object: ObjectProxy<Badge>, _ field: ObjectProxy<Badge>.FieldProxy<String?>) -> String? {
        if let cached = field.primitiveValue { return cached }
        let caption = "\(object.$title.value) \(object.$holder.value)"
        field.primitiveValue = caption
        return caption
    }

    /// Computed while the schema is built, from key paths of this very class.
    static func keysAffectingCaption() -> Set<String> {
        [String(keyPath: \Badge.$title), String(keyPath: \Badge.$holder)]
    }
}

/// A subclass: its own fields live in `FieldContainer<SilverBadge>`, the inherited ones in
/// `FieldContainer<Badge>`; key paths through either class name them.
final class SilverBadge: Badge {
    @Field.Stored("grade") var grade: Int = 2
}

@Suite("Accessors with inferred types, as CoreStore writes them")
struct InferredAccessorTests {
    static func stack(_ kind: StoreKind) throws -> DataStack {
        let stack = DataStack(CoreStoreSchema(modelVersion: "V1", entities: [Entity<Badge>("Badge"), Entity<SilverBadge>("SilverBadge")]))
        try stack.addStorageAndWait(kind.makeStore())
        return stack
    }

    @Test func dependentKeysMayNameFieldsOfTheirOwnClass() throws {
        #expect(Badge.keysAffectingCaption() == ["title", "holder"])
        let schema = CoreStoreSchema(modelVersion: "V1", entities: [Entity<Badge>("Badge")])
        #expect(schema.modelVersion == "V1")
    }

    @Test(arguments: StoreKind.allCases)
    func aCachedVirtualValueIsClearedBySetters(_ kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        let captions = try stack.perform(synchronous: { t -> [String?] in
            let badge = t.create(Into<Badge>())
            var seen = [badge.caption]
            badge.holder = "Ada"
            seen.append(badge.caption)
            badge.title = "Prof."
            seen.append(badge.caption)
            return seen
        })
        #expect(captions == ["Dr. ", "Dr. Ada", "Prof. Ada"])
        let badge = try #require(try stack.fetchOne(From<Badge>()))
        #expect(badge.caption == "Prof. Ada")
        #expect(badge.level == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func aVirtualFieldWithoutSetterKeepsWhatIsAssigned(_ kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        let scratch = try stack.perform(synchronous: { t -> [Int] in
            let badge = t.create(Into<Badge>())
            #expect(badge.scratch == [])
            badge.scratch.append(4)
            badge.scratch.append(5)
            return badge.scratch
        })
        #expect(scratch == [4, 5])
    }

    @Test(arguments: StoreKind.allCases)
    func inheritedAndOwnFieldsThroughEitherClass(_ kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        try stack.perform(synchronous: { t in
            for (holder, grade) in [("Ann", 1), ("Bob", 2), ("Cy", 2)] {
                let badge = t.create(Into<SilverBadge>())
                badge.holder = holder
                badge.grade = grade
            }
        })
        let viaSuperclass = try stack.fetchAll(From<SilverBadge>().where(\Badge.$holder != "Bob" && \SilverBadge.$grade == 2))
        #expect(viaSuperclass.map(\.holder) == ["Cy"])
        let viaSubclass = try stack.fetchAll(From<SilverBadge>().where(\.$holder == "Bob").orderBy(.ascending(\.$grade)))
        #expect(viaSubclass.map(\.holder) == ["Bob"])
        #expect(String(keyPath: \SilverBadge.$holder) == "holder")
    }

    @Test func errorsBridgeToNSErrorWithTheirDescription() {
        let error = CoreStoreError.deleteDenied(entity: "Badge", relationship: "owner")
        let bridged = error as NSError
        #expect(bridged.domain == CoreStoreErrorDomain)
        #expect(bridged.code == CoreStoreErrorCode.deleteDenied.rawValue)
        #expect(bridged.localizedDescription == error.description)
        #expect(bridged.coreStoreDumpString.contains("Badge"))
        #expect(CoreStoreError(nil).code == .unknownError)
        #expect(CoreStoreError(error) == error)
        #expect(CoreStoreError(CocoaError(.fileNoSuchFile)).code == .userError)
        #expect(Set([error, error, .userCancelled]).count == 2)
    }
}
