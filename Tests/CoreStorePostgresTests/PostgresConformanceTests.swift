import Testing
import CoreStoreConformance
import CoreStoreFirstPartyFactories

/// The whole conformance suite on `PostgresStore`, against a real server.
@Suite("Conformance on PostgreSQL", .serialized)
struct PostgresConformanceTests {
    static let factory = PostgresFactory(url: (try? PostgresTestServer.requireURL()) ?? "postgres://unavailable")

    @Test("A PostgreSQL server runs for these tests")
    func serverRuns() throws {
        _ = try PostgresTestServer.requireURL()
    }

    @Test(arguments: ConformanceSuite.cases(applicableTo: factory))
    func postgres(_ c: ConformanceCase) throws {
        _ = try PostgresTestServer.requireURL()
        try c.run(with: Self.factory)
    }
}
