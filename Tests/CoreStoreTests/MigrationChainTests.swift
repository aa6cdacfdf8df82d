import Testing
@testable import CoreStore

@Suite("MigrationChain")
struct MigrationChainTests {
    @Test("A list, a tree and a single version resolve their paths to the leaf")
    func paths() {
        let list: MigrationChain = ["V1", "V2", "V3"]
        #expect(list.isValid && list.leafVersion == "V3")
        #expect(list.path(from: "V1") == ["V1", "V2", "V3"])
        #expect(list.path(from: "V3") == ["V3"])
        #expect(list.path(from: "V0") == nil)
        let tree: MigrationChain = ["A": "C", "B": "D", "C": "D"]
        #expect(tree.leafVersion == "D")
        #expect(tree.path(from: "A") == ["A", "C", "D"])
        #expect(tree.path(from: "B") == ["B", "D"])
        let single: MigrationChain = "V1"
        #expect(single.leafVersion == "V1" && single.path(from: "V1") == ["V1"])
        let none: MigrationChain = nil
        #expect(none.isEmpty && none.isValid && none.leafVersion == nil)
        #expect(MigrationChain(["V1", "V2"]) == ["V1", "V2"])
        #expect(MigrationChain(["V1": "V2"]) == ["V1": "V2"])
    }

    @Test("Invalid chains say why", arguments: [
        (MigrationChain(["V1", "V2", "V1"]), "version 'V1' appears twice"),
        (MigrationChain([("V1", "V2"), ("V1", "V3")]), "'V1' has more than one next version"),
        (MigrationChain(["V1": "V2", "V2": "V1"]), "form a loop"),
        (MigrationChain(["V1": "V2", "V3": "V4"]), "ends in more than one version"),
    ])
    func invalid(chain: MigrationChain, message: String) {
        #expect(!chain.isValid)
        #expect(chain.leafVersion == nil)
        #expect(chain.validationError?.contains(message) == true, "\(chain.validationError ?? "valid")")
    }

    @Test("The current version: exact, else the chain's leaf, else the last schema")
    func currentVersion() {
        let v1 = CoreStoreSchema(modelVersion: "V1", entities: [])
        let v2 = CoreStoreSchema(modelVersion: "V2", entities: [])
        #expect(SchemaHistory(v1, v2).currentModelVersion == "V2")
        #expect(SchemaHistory(v2, v1, migrationChain: ["V2", "V1"]).currentModelVersion == "V1")
        #expect(SchemaHistory(allSchema: [v1, v2], exactCurrentModelVersion: "V1").currentSchema === v1)
        let history: SchemaHistory = [v1, v2]
        #expect(history.currentModelVersion == "V2" && history.validationError == nil)
        #expect(SchemaHistory(v1, v1).validationError?.contains("Two schemas declare model version 'V1'") == true)
    }

    @Test("A stack with an invalid chain refuses stores with invalidSchema")
    func invalidChainStack() throws {
        let stack = DataStack(CoreStoreSchema(modelVersion: "V1", entities: []), migrationChain: ["V1", "V2", "V1"])
        #expect {
            try stack.addStorageAndWait(InMemoryStore())
        } throws: { error in
            guard case .invalidSchema(let message) = error as? CoreStoreError else { return false }
            return message.contains("appears twice")
        }
    }
}
