import Foundation
import CSQLite
import CoreStoreStorage

/// The SQL functions and collations every connection registers, so that what SQLite cannot
/// express natively is answered with exactly the reference semantics:
///
/// - `corestore_test(value, n)`: whether a column value satisfies the `n`-th leaf comparison of
///   the statement being run (string operators, `[c]`/`[d]` folding, `MATCHES`, and comparisons
///   across storage kinds), using `PredicateEvaluator`.
/// - collation `CORESTORE_DECIMAL`: orders decimal text numerically.
///
/// Owned by one connection and used only by the thread holding it.
final class SQLiteFunctions {
    /// A comparison translated to a `corestore_test` call, with the type of its column.
    struct Leaf {
        let comparison: Comparison
        let type: AttributeType
    }

    private let evaluator: PredicateEvaluator
    /// The leaf comparisons of the statement about to run.
    var leaves: [Leaf] = []
    /// The error a function raised during the last statement, to be rethrown as is.
    var pendingError: StorageError?

    init(schema: StoreSchema) {
        self.evaluator = PredicateEvaluator(schema: schema)
    }

    func register(on db: OpaquePointer) throws {
        let context = Unmanaged.passUnretained(self).toOpaque()
        var rc = sqlite3_create_function_v2(db, "corestore_test", 2, SQLITE_UTF8, context, { ctx, argc, argv in
            guard let ctx, let argv, argc == 2, let user = sqlite3_user_data(ctx) else { return }
            let functions = Unmanaged<SQLiteFunctions>.fromOpaque(user).takeUnretainedValue()
            functions.test(ctx, argv[0], argv[1])
        }, nil, nil, nil)
        guard rc == SQLITE_OK else { throw StorageError.engine(code: Int(rc), message: "cannot register corestore_test") }
        rc = sqlite3_create_collation_v2(db, "CORESTORE_DECIMAL", SQLITE_UTF8, nil, { _, lhsCount, lhs, rhsCount, rhs in
            let a = String(decoding: UnsafeRawBufferPointer(start: lhs, count: Int(lhsCount)), as: UTF8.self)
            let b = String(decoding: UnsafeRawBufferPointer(start: rhs, count: Int(rhsCount)), as: UTF8.self)
            guard let x = SQLiteValueCodec.decimal(fromText: a), let y = SQLiteValueCodec.decimal(fromText: b) else {
                return Int32(Value.compareUTF8(a, b))
            }
            return x == y ? 0 : (x < y ? -1 : 1)
        }, nil)
        guard rc == SQLITE_OK else { throw StorageError.engine(code: Int(rc), message: "cannot register CORESTORE_DECIMAL") }
    }

    private func test(_ ctx: OpaquePointer, _ valueArgument: OpaquePointer?, _ indexArgument: OpaquePointer?) {
        let index = Int(sqlite3_value_int64(indexArgument))
        guard leaves.indices.contains(index) else {
            sqlite3_result_error(ctx, "corestore_test: no comparison \(index)", -1)
            return
        }
        let leaf = leaves[index]
        let raw = SQLiteStatement.value(
            type: sqlite3_value_type(valueArgument),
            integer: { sqlite3_value_int64(valueArgument) },
            real: { sqlite3_value_double(valueArgument) },
            bytes: { (sqlite3_value_blob(valueArgument), Int(sqlite3_value_bytes(valueArgument))) },
            text: { (sqlite3_value_text(valueArgument).map(UnsafeRawPointer.init), Int(sqlite3_value_bytes(valueArgument))) }
        )
        do {
            let value = try SQLiteValueCodec.decode(raw, as: leaf.type)
            sqlite3_result_int(ctx, try evaluator.evaluateLeaf(value, leaf.comparison) ? 1 : 0)
        } catch {
            let storageError = error as? StorageError ?? .invalidRequest("\(error)")
            pendingError = storageError
            sqlite3_result_error(ctx, storageError.description, -1)
        }
    }
}
