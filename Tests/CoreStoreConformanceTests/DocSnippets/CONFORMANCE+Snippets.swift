// Generated from docs/CONFORMANCE.md by scripts/extract-doc-snippets.sh: edit the document, then run
// the script. Each method is one code block of the document (or a run of blocks of one name), verbatim.
import Foundation
import XCTest
import CoreStoreConformance

extension ConformanceSnippets {
    /// docs/CONFORMANCE.md, the `runningEverything` block.
    func runningEverything() async throws {
        let report = ConformanceSuite.run(with: MyBackendFactory())   // optionally groups: ["values", "predicates"]
        print(report)               // "MyStore: <n> passed, 0 failed, <m> skipped", then one line per failure and skip
        XCTAssertTrue(report.failed.isEmpty, report.description)
    }

}
