import Foundation
import Testing
@testable import CoreStore
import CoreStoreInMemory

/// What the README's code blocks use without declaring it: a stack of the test model with
/// people and dogs, one person, import input, three schema versions, and `self` as a list
/// observer. `README+Snippets.swift` adds one method per block.
final class ReadmeSnippets: ListObserver, @unchecked Sendable {
    typealias ListEntityType = Person
    let dataStack: DataStack
    let person: Person
    let json: [[String: Any]] = [["id": 1, "name": "Ann"]]
    let schemaV1 = CoreStoreSchema(modelVersion: "V1", entities: [Entity<Person>("Person"), Entity<Dog>("Dog"), Entity<Cat>("Cat")])
    let schemaV2 = CoreStoreSchema(modelVersion: "V2", entities: [Entity<Person>("Person"), Entity<Dog>("Dog"), Entity<Cat>("Cat")])
    let schemaV3 = CoreStoreSchema(modelVersion: "V3", entities: [Entity<Person>("Person"), Entity<Dog>("Dog"), Entity<Cat>("Cat")])

    init() throws {
        dataStack = try makeStack(.inMemory)
        try insertAnnAndFido(dataStack)
        person = try #require(try dataStack.fetchOne(From<Person>().where(\.$name == "Ann")))
    }
}

/// The README's code blocks: `README+Snippets.swift` holds each of them verbatim (the compiler
/// checks them), the blocks marked `run` run here.
@Suite("README code blocks")
struct ReadmeSnippetTests {
    /// Every Swift block of README.md, with the name and mode its marker gives it.
    static func readmeBlocks() throws -> [(name: String?, mode: String?, code: [String])] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let lines = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8).components(separatedBy: "\n")
        var blocks: [(name: String?, mode: String?, code: [String])] = []
        var marker: (String, String)?
        var current: [String]?
        for line in lines {
            if var code = current {
                if line == "```" {
                    blocks.append((marker?.0, marker?.1, code))
                    current = nil
                    marker = nil
                } else {
                    code.append(line)
                    current = code
                }
            } else if line.hasPrefix("<!-- snippet: ") {
                let words = line.split(separator: " ")
                marker = words.count == 5 ? (String(words[2]), String(words[3])) : nil
            } else if line == "```swift" {
                current = []
            } else if !line.isEmpty {
                marker = nil
            }
        }
        return blocks
    }

    @Test func everyBlockIsMarkedAndMatchesTheCompiledCopy() throws {
        let generated = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("README+Snippets.swift"), encoding: .utf8)
        let blocks = try Self.readmeBlocks()
        #expect(blocks.count >= 5)
        for block in blocks {
            let name = try #require(block.name, "a README code block has no `<!-- snippet: NAME run|compile -->` line before it: \(block.code.prefix(2))")
            #expect(block.mode == "run" || block.mode == "compile")
            let body = block.code.filter { !$0.hasPrefix("import ") }.map { $0.isEmpty ? "" : "        " + $0 }.joined(separator: "\n")
            #expect(generated.contains("    func \(name)() async throws {\n" + body + "\n    }\n"), "README block '\(name)' differs from README+Snippets.swift: run scripts/extract-doc-snippets.sh")
        }
    }

    @Test func theQuickStartRuns() async throws {
        try await ReadmeSnippets().quickStart()
    }

    @Test func fetchingAndQueryingRuns() async throws {
        try await ReadmeSnippets().fetchingAndQuerying()
    }

    @Test func observingChangesRunsUntilCancelled() async throws {
        let snippets = try ReadmeSnippets()
        let task = Task { try await snippets.observingChanges() }
        task.cancel()
        try await task.value
    }

    @Test func everyRunBlockHasATest() throws {
        let run = try Self.readmeBlocks().filter { $0.mode == "run" }.compactMap(\.name)
        #expect(run.sorted() == ["fetchingAndQuerying", "observingChanges", "quickStart"])
    }
}
