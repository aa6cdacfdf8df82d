import Foundation
import Testing
@testable import CoreStore

/// What the code blocks of docs/MIGRATIONS.md use without declaring it: a stack.
/// `MIGRATIONS+Snippets.swift` adds one method per block.
final class MigrationsSnippets: @unchecked Sendable {
    let dataStack = DataStack(makeSchema())
}

/// The blocks of docs/MIGRATIONS.md marked `run`.
@Suite("MIGRATIONS.md code blocks")
struct MigrationsSnippetTests {
    @Test func declaringVersionsRuns() async throws {
        try await MigrationsSnippets().declaringVersions()
    }
}
