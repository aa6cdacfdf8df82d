import Foundation
import Testing
@testable import CoreStore

/// `printCoreStoreSchema()`: Swift source that declares the model version it was given.
@Suite("Printing a schema as Swift")
struct SchemaPrintingTests {
    @Test("The test model prints as its classes, fields, relationships and the schema with its version lock")
    func testModel() throws {
        let schema = makeSchema()
        let source = schema.printCoreStoreSchema()
        let lock = try schema.computedVersionLock()
        let expected = """
            class Animal: CoreStoreObject {
                @Field.Stored("species") var species: String = ""
                @Field.Stored("name") var name: String = ""
            }

            final class Person: CoreStoreObject {
                @Field.Stored("name") var name: String = ""
                @Field.Stored("age") var age: Int = 0
                @Field.Stored("nickname") var nickname: String?
                @Field.Stored("mood") var mood: String = "happy"
                @Field.Stored("tags") var tags: Data?
                @Field.Relationship("pets", deleteRule: .cascade) var pets: Set<Dog>
                @Field.Relationship("friends") var friends: [Person]
                // "displayName" is a virtual field (not stored): declare it with its customGetter.
            }

            final class Dog: Animal {
                // "tag" had a dynamic initial value: give its closure as dynamicInitialValue.
                @Field.Stored("tag") var tag: UUID = UUID()
                @Field.Relationship("master", inverse: \\Person.$pets) var master: Person?
            }

            final class Cat: Animal {
                @Field.Stored("lives") var lives: Int = 9
            }

            CoreStoreSchema(
                modelVersion: "V1",
                entities: [
                    Entity<Animal>("Animal", isAbstract: true),
                    Entity<Person>("Person", indexes: [[\\Person.$name]]),
                    Entity<Dog>("Dog"),
                    Entity<Cat>("Cat"),
                ],
                versionLock: \(lock.description.replacingOccurrences(of: "\n", with: "\n    "))
            )

            """
        #expect(source == expected, "\(source)")
    }

    @Test("The printed classes compile as pasted (PrintedTestModel.swift holds them verbatim) and store the same model")
    func printedSourceRoundTrips() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("PrintedTestModel.swift")
        let pasted = try String(contentsOf: file, encoding: .utf8)
        let printed = makeSchema().printCoreStoreSchema()
        let classes = printed[..<(try #require(printed.range(of: "CoreStoreSchema(")).lowerBound)]
        let indented = classes.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n")
            .trimmingCharacters(in: .newlines)
        #expect(pasted.contains(indented), "PrintedTestModel.swift no longer holds what printCoreStoreSchema() prints")
        #expect(try PrintedTestModel.schema.computedVersionLock() == makeSchema().computedVersionLock())
    }

    @Test("Names and defaults that need escaping print as valid literals and identifiers")
    func escaping() {
        #expect(SchemaSourcePrinter.literal("a\"b\\c\nd\u{1}") == #""a\"b\\c\nd\u{1}""#)
        #expect(SchemaSourcePrinter.identifier("default") == "`default`")
        #expect(SchemaSourcePrinter.identifier("title") == "title")
    }
}
