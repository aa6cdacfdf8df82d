import Foundation
import Testing
import CoreStoreStorage

@Suite("Predicate evaluator")
struct PredicateEvaluatorTests {
    let evaluator = PredicateEvaluator(schema: Fixtures.schema)
    let ann = Fixtures.person(1, "Ann Émile", age: 30, email: "ann@example.com")
    let nobody = Fixtures.person(2, "", age: nil)

    func holds(_ key: String, _ op: ComparisonOperator, _ value: Value, _ options: StringComparisonOptions = [], on record: Record? = nil) throws -> Bool {
        try evaluator.evaluate(.comparison(Comparison(key, op, value, options: options)), on: record ?? ann)
    }

    @Test func comparisonsOnIntegers() throws {
        #expect(try holds("age", .equal, .int(30)))
        #expect(try holds("age", .equal, .double(30.0)))
        #expect(try holds("age", .notEqual, .int(31)))
        #expect(try holds("age", .less, .int(31)))
        #expect(try !holds("age", .less, .int(30)))
        #expect(try holds("age", .lessOrEqual, .int(30)))
        #expect(try holds("age", .greater, .double(29.5)))
        #expect(try holds("age", .greaterOrEqual, .int(30)))
        #expect(try !holds("age", .greaterOrEqual, .int(31)))
    }

    @Test func nilSemantics() throws {
        #expect(try holds("age", .equal, .null, on: nobody))
        #expect(try !holds("age", .notEqual, .null, on: nobody))
        #expect(try holds("age", .notEqual, .null))
        #expect(try !holds("age", .less, .int(100), on: nobody))
        #expect(try !holds("age", .greater, .int(-100), on: nobody))
        #expect(try holds("age", .notEqual, .int(1), on: nobody))
    }

    @Test func differentKindsAreNeverEqualOrOrdered() throws {
        #expect(try !holds("age", .equal, .string("30")))
        #expect(try holds("age", .notEqual, .string("30")))
        #expect(try !holds("age", .less, .string("zzz")))
    }

    @Test func nanIsUnequalToEverythingAndUnordered() {
        #expect(!PredicateEvaluator.equal(.double(.nan), .double(.nan)))
        #expect(PredicateEvaluator.order(.double(.nan), .int(1)) == nil)
    }

    @Test func inAndBetween() throws {
        let list = RecordPredicate.comparison(Comparison(["age"], .in, .list([.int(1), .int(30)])))
        #expect(try evaluator.evaluate(list, on: ann))
        let empty = RecordPredicate.comparison(Comparison(["age"], .in, .list([])))
        #expect(try !evaluator.evaluate(empty, on: ann))
        let between = RecordPredicate.comparison(Comparison(["age"], .between, .list([.int(30), .int(40)])))
        #expect(try evaluator.evaluate(between, on: ann))
        let outside = RecordPredicate.comparison(Comparison(["age"], .between, .list([.int(31), .int(40)])))
        #expect(try !evaluator.evaluate(outside, on: ann))
        let caseless = RecordPredicate.comparison(Comparison(["name"], .in, .list([.string("ann émile")]), options: .caseInsensitive))
        #expect(try evaluator.evaluate(caseless, on: ann))
    }

    @Test func stringOperatorsWithModifiers() throws {
        #expect(try holds("name", .beginsWith, .string("Ann")))
        #expect(try !holds("name", .beginsWith, .string("ann")))
        #expect(try holds("name", .beginsWith, .string("ann"), .caseInsensitive))
        #expect(try holds("name", .endsWith, .string("Émile")))
        #expect(try !holds("name", .endsWith, .string("emile"), .caseInsensitive))
        #expect(try holds("name", .endsWith, .string("emile"), [.caseInsensitive, .diacriticInsensitive]))
        #expect(try holds("name", .contains, .string("n É")))
        #expect(try holds("name", .contains, .string("N E"), [.caseInsensitive, .diacriticInsensitive]))
        #expect(try holds("name", .contains, .string("")))
        #expect(try holds("name", .equal, .string("ANN EMILE"), [.caseInsensitive, .diacriticInsensitive]))
        #expect(try !holds("name", .equal, .string("ANN ÉMILE")))
    }

    @Test func likeWithWildcards() throws {
        #expect(try holds("email", .like, .string("*@example.com")))
        #expect(try holds("email", .like, .string("a?n@*")))
        #expect(try !holds("email", .like, .string("a?@*")))
        #expect(try holds("email", .like, .string("*")))
        #expect(try holds("email", .like, .string("ANN@*"), .caseInsensitive))
        #expect(try !holds("email", .like, .string("ann@example")))
    }

    @Test func matchesIsAWholeStringRegularExpression() throws {
        #expect(try holds("email", .matches, .string("[a-z]+@example\\.com")))
        #expect(try !holds("email", .matches, .string("[a-z]+@example")))
        #expect(try holds("email", .matches, .string("ANN@.*"), .caseInsensitive))
        #expect(throws: StorageError.self) { try holds("email", .matches, .string("(unclosed")) }
    }

    @Test func logicalNodes() throws {
        let yes = RecordPredicate.constant(true), no = RecordPredicate.constant(false)
        #expect(try evaluator.evaluate(.and([]), on: ann))
        #expect(try !evaluator.evaluate(.or([]), on: ann))
        #expect(try evaluator.evaluate(yes && !no, on: ann))
        #expect(try evaluator.evaluate(no || yes, on: ann))
        #expect(try !evaluator.evaluate(.not(yes), on: ann))
    }

    @Test func unknownKeyThrows() {
        #expect(throws: StorageError.unknownKey(key: "shoe", entity: "Person")) {
            try holds("shoe", .equal, .int(1))
        }
    }

    @Test func relationshipsCompareWithRecordsAndNil() throws {
        let rex = Fixtures.dog(5, "Rex", owner: RecordID(entity: "Person", key: 1))
        let stray = Fixtures.dog(6, "Stray")
        let isOwnedByAnn = RecordPredicate.comparison(Comparison(["owner"], .equal, .records([RecordID(entity: "Person", key: 1)])))
        #expect(try evaluator.evaluate(isOwnedByAnn, on: rex))
        #expect(try !evaluator.evaluate(isOwnedByAnn, on: stray))
        let hasNoOwner = RecordPredicate.comparison(Comparison("owner", .equal, .null))
        #expect(try evaluator.evaluate(hasNoOwner, on: stray))
        let ownerIn = RecordPredicate.comparison(Comparison(["owner"], .in, .records([RecordID(entity: "Person", key: 9), RecordID(entity: "Person", key: 1)])))
        #expect(try evaluator.evaluate(ownerIn, on: rex))
    }

    @Test func keyPathsFollowRelationshipsThroughAResolver() throws {
        let ann = self.ann
        let evaluator = PredicateEvaluator(schema: Fixtures.schema) { id in id.key == 1 ? ann : nil }
        let rex = Fixtures.dog(5, "Rex", owner: RecordID(entity: "Person", key: 1))
        let ownerIsThirty = RecordPredicate.comparison(Comparison(["owner", "age"], .equal, .value(.int(30))))
        #expect(try evaluator.evaluate(ownerIsThirty, on: rex))
        #expect(try !evaluator.evaluate(ownerIsThirty, on: Fixtures.dog(6, "Stray")))
        #expect(throws: StorageError.self) { try self.evaluator.evaluate(ownerIsThirty, on: rex) }
    }
}
