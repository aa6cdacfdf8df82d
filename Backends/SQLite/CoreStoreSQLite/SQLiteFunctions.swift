import CoreStoreSQL
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
/// - aggregates `corestore_sum_double(key, value)` and `corestore_average_double(key, value)`:
///   the sum and mean of a double column, computed by `AggregateAccumulator` as the reference
///   evaluator computes them (see ``DoubleSum``).
///
/// Owned by one connection and used only by the thread holding it.
final class SQLiteFunctions {
    private let evaluator: PredicateEvaluator
    /// The leaf comparisons of the statement about to run.
    var leaves: [SQLFallbackLeaf] = []
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
        // Not SQLITE_DETERMINISTIC: the result depends on nothing but the rows, but the key
        // argument must never be optimized away.
        let step: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { ctx, argc, argv in
            guard let ctx, let argv, argc == 2 else { return }
            DoubleSum.step(ctx, argv[0], argv[1])
        }
        let finals: [(name: String, final: @convention(c) (OpaquePointer?) -> Void)] = [
            ("corestore_sum_double", { ctx in if let ctx { DoubleSum.finish(ctx, average: false) } }),
            ("corestore_average_double", { ctx in if let ctx { DoubleSum.finish(ctx, average: true) } }),
        ]
        for (name, final) in finals {
            rc = sqlite3_create_function_v2(db, name, 2, SQLITE_UTF8, nil, nil, step, final, nil)
            guard rc == SQLITE_OK else { throw StorageError.engine(code: Int(rc), message: "cannot register \(name)") }
        }
    }

    /// The message of the error the aggregates raise for a value the codec would reject: the
    /// caller then answers by fetching, which reports the damaged value as a read would.
    static let fallbackMessage = "corestore: aggregate needs the reference evaluator"

    /// The state of `corestore_sum_double` / `corestore_average_double` for one group.
    ///
    /// The reference arithmetic is ``AggregateAccumulator``'s: the non-`nil` values of a double
    /// attribute added one by one, starting from `0.0`, in record key order. SQLite's own `sum()`
    /// rounds differently (it compensates the error, and treats NaN, stored as text, as 0), and
    /// feeds rows in whatever order the query plan yields. So the values are kept with their
    /// keys and handed to an accumulator in key order at the end; they mostly arrive in key order
    /// already (a table or index scan), and then need no sort.
    final class DoubleSum {
        private var entries: [(key: Int64, value: Double)] = []
        private var inKeyOrder = true
        /// A value that a double column never holds (a damaged database).
        private var unexpected = false

        /// Adds one row: `keyArgument` is the record key, `valueArgument` the column.
        static func step(_ ctx: OpaquePointer, _ keyArgument: OpaquePointer?, _ valueArgument: OpaquePointer?) {
            let value: Double
            var unexpected = false
            switch sqlite3_value_type(valueArgument) {
            case SQLITE_NULL:
                return
            case SQLITE_FLOAT:
                value = sqlite3_value_double(valueArgument)
            case SQLITE_INTEGER:
                value = Double(sqlite3_value_int64(valueArgument))
            default:
                // NaN is stored as the text `NaN`; anything else is damage.
                value = .nan
                unexpected = !SQLiteFunctions.isNaNText(valueArgument)
            }
            guard let state = state(ctx, create: true) else {
                sqlite3_result_error_nomem(ctx)
                return
            }
            if unexpected { state.unexpected = true }
            let key = sqlite3_value_int64(keyArgument)
            if let last = state.entries.last, last.key >= key { state.inKeyOrder = false }
            state.entries.append((key, value))
        }

        /// Sets the group's result and releases its state.
        static func finish(_ ctx: OpaquePointer, average: Bool) {
            // No state: no row reached the aggregate.
            guard let slot = sqlite3_aggregate_context(ctx, 0)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self),
                  let pointer = slot.pointee else {
                sqlite3_result_null(ctx)
                return
            }
            let state = Unmanaged<DoubleSum>.fromOpaque(pointer).takeRetainedValue()
            slot.pointee = nil
            if state.unexpected {
                sqlite3_result_error(ctx, SQLiteFunctions.fallbackMessage, -1)
                return
            }
            guard !state.entries.isEmpty else {
                sqlite3_result_null(ctx)
                return
            }
            if !state.inKeyOrder { state.entries.sort { $0.key < $1.key } }
            var accumulator = AggregateAccumulator(average ? .average : .sum, of: .double)
            for entry in state.entries { accumulator.add(.double(entry.value)) }
            // A double sum or average never throws, and over at least one value is a double.
            guard case .double(let total)? = try? accumulator.result(for: "") else {
                sqlite3_result_null(ctx)
                return
            }
            if total.isNaN {
                // SQLite turns a NaN result into NULL; NaN is the text `NaN`, as in a column.
                sqlite3_result_text(ctx, "NaN", 3, SQLiteStatement.transient)
            } else {
                sqlite3_result_double(ctx, total)
            }
        }

        /// The group's state, kept behind a pointer in SQLite's per-group memory.
        private static func state(_ ctx: OpaquePointer, create: Bool) -> DoubleSum? {
            let size = Int32(MemoryLayout<UnsafeMutableRawPointer?>.size)
            guard let slot = sqlite3_aggregate_context(ctx, create ? size : 0)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self) else {
                return nil
            }
            if let pointer = slot.pointee { return Unmanaged<DoubleSum>.fromOpaque(pointer).takeUnretainedValue() }
            guard create else { return nil }
            let state = DoubleSum()
            slot.pointee = Unmanaged.passRetained(state).toOpaque()
            return state
        }
    }

    /// Whether an SQL value is the text `NaN`, how a double column stores NaN.
    private static func isNaNText(_ value: OpaquePointer?) -> Bool {
        guard sqlite3_value_type(value) == SQLITE_TEXT, sqlite3_value_bytes(value) == 3, let text = sqlite3_value_text(value) else { return false }
        return text[0] == UInt8(ascii: "N") && text[1] == UInt8(ascii: "a") && text[2] == UInt8(ascii: "N")
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
