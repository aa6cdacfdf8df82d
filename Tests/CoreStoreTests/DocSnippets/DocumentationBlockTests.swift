import Foundation
import Testing

/// Every Swift code block of README.md and docs/*.md is either compiled or a copy of compiled
/// code: a block marked `<!-- snippet: NAME run|compile -->` must be, verbatim, the body of
/// method NAME in the document's generated `…+Snippets.swift` (scripts/extract-doc-snippets.sh
/// writes them; consecutive blocks of one NAME make one method); a block marked `<!-- excerpt: PATH -->` must be a run of the code lines of
/// PATH (comments and blank lines aside). An unmarked block fails.
@Suite("Documentation code blocks")
struct DocumentationBlockTests {
    struct Block {
        let document: String
        let line: Int
        let marker: [String]
        let code: [String]
    }

    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func documents() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md"] + docs
    }

    /// The Swift blocks of a document, each with the words of the marker line before it.
    static func blocks(of document: String) throws -> [Block] {
        let lines = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8).components(separatedBy: "\n")
        var blocks: [Block] = []
        var marker: [String] = []
        var current: (line: Int, code: [String])?
        for (index, line) in lines.enumerated() {
            if let open = current {
                if line == "```" {
                    blocks.append(Block(document: document, line: open.line, marker: marker, code: open.code))
                    current = nil
                    marker = []
                } else {
                    current?.code.append(line)
                }
            } else if line.hasPrefix("<!-- snippet: ") || line.hasPrefix("<!-- excerpt: ") {
                marker = line.split(separator: " ").map(String.init)
            } else if line == "```swift" {
                current = (index + 1, [])
            } else if !line.isEmpty {
                marker = []
            }
        }
        return blocks
    }

    /// The code lines of a file: no blank lines, no comment lines, no trailing spaces.
    static func codeLines(_ lines: [String]) -> [String] {
        lines.map { String($0.reversed().drop(while: { $0 == " " }).reversed()) }
            .filter { !$0.isEmpty && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
    }

    static func generatedFile(for document: String) throws -> String {
        let name = (document as NSString).lastPathComponent.replacingOccurrences(of: ".md", with: "") + "+Snippets.swift"
        for directory in ["Tests/CoreStoreTests/DocSnippets", "Tests/CoreStoreConformanceTests/DocSnippets"] {
            let url = root.appendingPathComponent(directory).appendingPathComponent(name)
            if let text = try? String(contentsOf: url, encoding: .utf8) { return text }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
    }

    @Test(arguments: try documents())
    func everyBlockIsCompiledOrCopiedFromCompiledCode(_ document: String) throws {
        for block in try Self.blocks(of: document) {
            let place = "\(document):\(block.line)"
            switch block.marker.count == 4 || block.marker.count == 5 ? block.marker[1] : "" {
            case "snippet:":
                try #require(block.marker.count == 5, "\(place): the marker is `<!-- snippet: NAME run|compile -->`")
                #expect(["run", "compile"].contains(block.marker[3]), "\(place): a snippet is `run` or `compile`")
                // Blocks of one name, one after another, make one method.
                let run = try Self.blocks(of: document).filter { $0.marker.count == 5 && $0.marker[2] == block.marker[2] }
                let body = run.map { part in
                    part.code.filter { !$0.hasPrefix("import ") }.map { $0.isEmpty ? "" : "        " + $0 }.joined(separator: "\n")
                }.joined(separator: "\n\n")
                let generated = try Self.generatedFile(for: document)
                #expect(generated.contains("    func \(block.marker[2])() async throws {\n" + body + "\n    }\n"),
                        "\(place): block '\(block.marker[2])' differs from its compiled copy: run scripts/extract-doc-snippets.sh")
            case "excerpt:":
                let path = block.marker[2]
                let file = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
                let haystack = Self.codeLines(file.components(separatedBy: "\n")), needle = Self.codeLines(block.code)
                let found = !needle.isEmpty && haystack.indices.contains { start in
                    start + needle.count <= haystack.count && Array(haystack[start..<start + needle.count]) == needle
                }
                #expect(found, "\(place): the block is not the code of \(path) any more")
            default:
                Issue.record("\(place): a Swift block with no `<!-- snippet: … -->` or `<!-- excerpt: … -->` line before it")
            }
        }
    }

    /// The generated methods exist only for marked blocks: nothing stale is left compiled.
    @Test(arguments: try documents())
    func everyGeneratedSnippetHasItsBlock(_ document: String) throws {
        var names: [String] = []
        for block in try Self.blocks(of: document) where block.marker.count == 5 && block.marker[1] == "snippet:" && names.last != block.marker[2] {
            names.append(block.marker[2])
        }
        guard let generated = try? Self.generatedFile(for: document) else {
            #expect(names.isEmpty, "\(document) has snippets but no generated file: run scripts/extract-doc-snippets.sh")
            return
        }
        let methods = generated.components(separatedBy: "\n").filter { $0.hasPrefix("    func ") }.map {
            String($0.dropFirst("    func ".count).prefix { $0 != "(" })
        }
        #expect(methods == names)
    }
}
