import Foundation
import CPostgres
import CoreStoreSQL
import CoreStoreStorage

/// One connection to a PostgreSQL server through libpq, with its prepared statements.
///
/// Parameters go out untyped (the server infers each one's type from where it stands, so a
/// value always meets its column's own type) and as text, except bytes, which go out as they
/// are; results come back as text and are decoded by the column's attribute type
/// (``PostgresRow``).
///
/// Not thread-safe: the store hands a connection to one thread at a time.
final class PostgresConnection {
    let handle: OpaquePointer
    /// Where the connection goes, without the password (for messages).
    let location: String
    private var statements: [String: PostgresStatement] = [:]
    /// The statements numbered up to this one were dropped on the server by the last
    /// `DEALLOCATE ALL` (see ``statement(_:)``); a holder that kept one prepares it again.
    private(set) var deallocatedThrough = 0
    private var statementCount = 0
    /// The text of each statement named but not yet prepared on the server, by name: its
    /// `Parse` goes out with its first run, in the same round trip (see ``prepare(_:)``).
    private var unprepared: [String: String] = [:]
    /// The number of rows the last INSERT, UPDATE or DELETE changed.
    private(set) var changes = 0
    /// The `BEGIN` of the open transaction while it has not reached the server: it goes out
    /// with the transaction's first statement, in the same round trip (see ``transaction(_:_:)``).
    private var pendingBegin: String?
    /// Savepoint commands of the open transaction that have not reached the server: they go
    /// out with its next statement, after a pending `BEGIN`, in the same round trip (see
    /// ``attemptingAggregate(_:)``). The transaction's end drops them: its `COMMIT` or
    /// `ROLLBACK` ends every savepoint.
    private var pendingSavepointCommands: [String] = []
    /// The prepared statement that goes out with the open transaction's `COMMIT`, in the same
    /// round trip (see ``executeWithCommit(_:sql:_:)``).
    private var statementWithCommit: (name: String, sql: String, values: [SQLValue])?
    /// Whether the `COMMIT` of a read-only transaction was sent and its result not yet read: it
    /// is read before the connection's next command (see ``transaction(_:_:)``).
    private var commitInFlight = false

    /// Connects with a libpq connection string (`postgres://user@host:port/database?…` or
    /// `host=… dbname=…`); `location` names it in messages.
    init(connectionString: String, location: String) throws {
        guard let connection = PQconnectdb(connectionString) else {
            throw StorageError.engine(code: 0, message: "cannot connect to PostgreSQL at \(location): out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(connection))
            PQfinish(connection)
            throw StorageError.engine(code: 0, message: "cannot connect to PostgreSQL at \(location): \(message)")
        }
        self.handle = connection
        self.location = location
        // Notices (for example "relation already exists, skipping") are not errors: keep them
        // off standard error.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        do {
            try execute("SET client_encoding = 'UTF8'; SET extra_float_digits = 1; SET standard_conforming_strings = on")
        } catch {
            PQfinish(connection)
            throw error
        }
    }

    deinit {
        statements.removeAll()
        PQfinish(handle)
    }

    /// Whether the server is still there (a connection broken by a restart is not).
    var isUsable: Bool { PQstatus(handle) == CONNECTION_OK }

    /// A cached prepared statement for `sql`.
    func statement(_ sql: String) throws -> PostgresStatement {
        if let cached = statements[sql] { return cached }
        settle()
        if statements.count >= 256 {
            statements.removeAll(keepingCapacity: true)
            try execute("DEALLOCATE ALL")
            deallocatedThrough = statementCount
            unprepared.removeAll()
        }
        let number = prepare(sql)
        let statement = PostgresStatement(connection: self, number: number, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Names `sql` for the server (``statementName(_:)``) and returns its number. Nothing is
    /// sent yet: the statement is prepared by its first run, whose `Parse` goes out in the same
    /// round trip as its `Bind` and `Execute` (a separate `PQprepare` would cost one round trip
    /// more, on every connection, for every statement it meets). Also what a statement kept
    /// past a `DEALLOCATE ALL` calls (a commit's writer holds its statements while it prepares
    /// others).
    func prepare(_ sql: String) -> Int {
        statementCount += 1
        unprepared[Self.statementName(statementCount)] = sql
        return statementCount
    }

    /// The server-side name of the statement numbered `number`.
    static func statementName(_ number: Int) -> String { "corestore_\(number)" }

    /// Runs one or more statements without parameters (DDL, settings, transaction control).
    func execute(_ sql: String) throws {
        settle()
        try runStatementWithCommitNow()
        // Pending transaction commands go first, in the same simple query.
        let text = (takePendingCommands() + [sql]).joined(separator: "; ")
        let result = PQexec(handle, text)
        defer { PQclear(result) }
        try check(result, context: text)
        changes = Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// The pending `BEGIN` and savepoint commands, in the order they must run, now handed to
    /// the caller to send.
    private func takePendingCommands() -> [String] {
        var commands = pendingBegin.map { [$0] } ?? []
        commands += pendingSavepointCommands
        pendingBegin = nil
        pendingSavepointCommands.removeAll()
        return commands
    }

    /// Sends `command`, a savepoint command of the open transaction, with its next statement.
    func deferSavepointCommand(_ command: String) {
        pendingSavepointCommands.append(command)
    }

    /// Takes back `command` when it is the last savepoint command deferred and still unsent;
    /// returns whether it was.
    func withdrawUnsentSavepointCommand(_ command: String) -> Bool {
        guard pendingSavepointCommands.last == command else { return false }
        pendingSavepointCommands.removeLast()
        return true
    }

    /// Runs the prepared statement `name` (whose text is `sql`) with `values` as the open
    /// transaction's last statement: it goes out with the transaction's `COMMIT`, in one round
    /// trip, and a failure of either fails the transaction. A statement run after this one
    /// sends it first, so statements still run in the order they were asked for.
    func executeWithCommit(_ name: String, sql: String, _ values: [SQLValue]) throws {
        try runStatementWithCommitNow()
        statementWithCommit = (name, sql, values)
    }

    /// Runs the statement deferred to the `COMMIT` now, because another statement comes after it.
    private func runStatementWithCommitNow() throws {
        guard let deferred = statementWithCommit else { return }
        statementWithCommit = nil
        PQclear(try run(deferred.name, sql: deferred.sql, deferred.values))
    }

    /// Whether a transaction is open (possibly failed, waiting for its `ROLLBACK`, or begun
    /// and not yet sent).
    var isInTransaction: Bool {
        settle()
        return pendingBegin != nil || PQtransactionStatus(handle) != PQTRANS_IDLE
    }

    /// Reads the result of a `COMMIT` still in flight. It cannot fail but for a broken
    /// connection, which the next command then reports.
    private func settle() {
        guard commitInFlight else { return }
        commitInFlight = false
        while let result = PQgetResult(handle) { PQclear(result) }
    }

    /// Runs `body` in one transaction at `isolation`: committed when it returns, rolled back
    /// when it throws.
    ///
    /// The `BEGIN` is sent with the first statement `body` runs, in one round trip; a `body`
    /// that runs none opens no transaction on the server. The `COMMIT` of a `READ ONLY`
    /// transaction is sent without waiting for its answer, which the next command reads first:
    /// it has nothing to make durable and nothing that can conflict, and what `body` read is
    /// already in hand. A read of one statement is then one round trip, not three. A statement
    /// `body` hands to ``executeWithCommit(_:sql:_:)`` goes out with the `COMMIT` instead.
    func transaction<T>(_ isolation: String, _ body: () throws -> T) throws -> T {
        settle()
        pendingBegin = "BEGIN ISOLATION LEVEL \(isolation)"
        pendingSavepointCommands.removeAll()
        statementWithCommit = nil
        do {
            let result = try body()
            pendingSavepointCommands.removeAll()
            if let last = statementWithCommit {
                statementWithCommit = nil
                PQclear(try run(last.name, sql: last.sql, last.values, followedBy: "COMMIT"))
                return result
            }
            if pendingBegin != nil {
                pendingBegin = nil
                return result
            }
            if isolation.hasSuffix("READ ONLY"), PQtransactionStatus(handle) == PQTRANS_INTRANS, PQsendQuery(handle, "COMMIT") == 1 {
                commitInFlight = true
                return result
            }
            try execute("COMMIT")
            return result
        } catch {
            pendingBegin = nil
            pendingSavepointCommands.removeAll()
            statementWithCommit = nil
            if PQtransactionStatus(handle) != PQTRANS_IDLE {
                try? execute("ROLLBACK")
            }
            throw error
        }
    }

    /// Runs the prepared statement `name` with `values` and returns its result (to be cleared
    /// by the caller), in the binary format when `binaryResults` (``PostgresBinaryValue``).
    /// `trailing`, a command without parameters (a `COMMIT`), goes out after it in the same
    /// round trip, and its failure is the statement's.
    func run(_ name: String, sql: String, _ values: [SQLValue], binaryResults: Bool = false, followedBy trailing: String? = nil) throws -> OpaquePointer? {
        if trailing == nil { try runStatementWithCommitNow() }
        var texts: [ContiguousArray<CChar>?] = []
        texts.reserveCapacity(values.count)
        var lengths: [Int32] = []
        var formats: [Int32] = []
        for value in values {
            switch value {
            case .null:
                texts.append(nil); lengths.append(0); formats.append(0)
            case .integer(let i):
                texts.append(ContiguousArray(String(i).utf8CString)); lengths.append(0); formats.append(0)
            case .real(let d):
                texts.append(ContiguousArray(Self.text(of: d).utf8CString)); lengths.append(0); formats.append(0)
            case .text(let s):
                texts.append(ContiguousArray(s.utf8CString)); lengths.append(0); formats.append(0)
            case .blob(let data):
                // Binary: the bytes as they are, copied once.
                let bytes = ContiguousArray<CChar>(unsafeUninitializedCapacity: Swift.max(data.count, 1)) { buffer, initialized in
                    data.copyBytes(to: UnsafeMutableRawBufferPointer(buffer).bindMemory(to: UInt8.self), count: data.count)
                    initialized = data.count
                }
                texts.append(bytes); lengths.append(Int32(data.count)); formats.append(1)
            }
        }
        settle()
        let result: OpaquePointer?
        let pending = takePendingCommands()
        let preparing = unprepared[name] != nil
        if !pending.isEmpty || trailing != nil || preparing {
            // Checked there, each result in the order it was sent.
            result = try withPointers(texts) { pointers in
                try runInPipeline(pending, name, sql: sql, preparing: preparing, Int32(values.count), pointers, lengths, formats,
                                  binaryResults: binaryResults, followedBy: trailing.map { [$0] } ?? [])
            }
        } else {
            result = withPointers(texts) { pointers in
                PQexecPrepared(handle, name, Int32(values.count), pointers, lengths, formats, binaryResults ? 1 : 0)
            }
            do {
                try check(result, context: sql)
            } catch {
                PQclear(result)
                throw error
            }
        }
        changes = Int(String(cString: PQcmdTuples(result))) ?? 0
        return result
    }

    /// Sends the transaction commands `leading` (a `BEGIN`, savepoint commands), the statement
    /// `name` (first its `Parse`, when `preparing`: see ``prepare(_:)``) and the commands
    /// `trailing` (a `COMMIT`) in one pipeline (one round trip) and returns the statement's
    /// result, after checking every result in the order they were sent: the first that failed
    /// is the error (the server skips what follows a failure). After a failure the transaction
    /// is left aborted on the server, for ``transaction(_:_:)`` to roll back.
    private func runInPipeline(
        _ leading: [String], _ name: String, sql: String, preparing: Bool, _ count: Int32, _ pointers: [UnsafePointer<CChar>?],
        _ lengths: [Int32], _ formats: [Int32], binaryResults: Bool, followedBy trailing: [String]
    ) throws -> OpaquePointer? {
        guard PQenterPipelineMode(handle) == 1 else {
            throw StorageError.engine(code: 0, message: "\(Self.trimmed(PQerrorMessage(handle))) (while starting a transaction on \(location))")
        }
        var sent = true
        for command in leading where sent {
            sent = PQsendQueryParams(handle, command, 0, nil, nil, nil, nil, 0) == 1
        }
        if preparing { sent = sent && PQsendPrepare(handle, name, sql, 0, nil) == 1 }
        sent = sent && PQsendQueryPrepared(handle, name, count, pointers, lengths, formats, binaryResults ? 1 : 0) == 1
        for command in trailing where sent {
            sent = PQsendQueryParams(handle, command, 0, nil, nil, nil, nil, 0) == 1
        }
        sent = sent && PQpipelineSync(handle) == 1
        // Each statement's results end with a null; the pipeline's end is a sync result.
        let leadingResults = sent ? leading.map { _ in nextResults() } : []
        let preparation = sent && preparing ? nextResults() : nil
        // Prepared from now on, whatever the rest did; one the server refused (or never reached)
        // sends its `Parse` again with its next run.
        if let preparation, PQresultStatus(preparation) == PGRES_COMMAND_OK { unprepared[name] = nil }
        let result = sent ? nextResults() : nil
        let trailingResults = sent ? trailing.map { _ in nextResults() } : []
        if sent, let sync = PQgetResult(handle) { PQclear(sync) }
        let failure = sent ? nil : Self.trimmed(PQerrorMessage(handle))
        PQexitPipelineMode(handle)
        defer {
            leadingResults.forEach { PQclear($0) }
            PQclear(preparation)
            trailingResults.forEach { PQclear($0) }
        }
        if let failure {
            let commands = (leading + [sql.statementExcerpt] + trailing).joined(separator: "; ")
            throw StorageError.engine(code: 0, message: "\(failure) (while running \(commands) on \(location))")
        }
        do {
            for (command, commandResult) in zip(leading, leadingResults) {
                try check(commandResult, context: command)
            }
            if preparing { try check(preparation, context: sql) }
            try check(result, context: sql)
            for (command, commandResult) in zip(trailing, trailingResults) {
                try check(commandResult, context: command)
            }
        } catch {
            PQclear(result)
            throw error
        }
        return result
    }

    /// The first result of the next statement of a pipeline, after reading (and clearing) the
    /// rest of its results up to their closing null.
    private func nextResults() -> OpaquePointer? {
        let first = PQgetResult(handle)
        guard first != nil else { return nil }
        while let more = PQgetResult(handle) { PQclear(more) }
        return first
    }

    /// The text PostgreSQL reads back as exactly `d` (`NaN` and the infinities by name).
    static func text(of d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        return "\(d)"
    }

    private func withPointers<R>(_ texts: [ContiguousArray<CChar>?], _ body: ([UnsafePointer<CChar>?]) throws -> R) rethrows -> R {
        var pointers: [UnsafePointer<CChar>?] = []
        pointers.reserveCapacity(texts.count)
        func next(_ i: Int) throws -> R {
            if i == texts.count { return try body(pointers) }
            guard let text = texts[i] else {
                pointers.append(nil)
                return try next(i + 1)
            }
            return try text.withUnsafeBufferPointer { buffer in
                pointers.append(buffer.baseAddress)
                return try next(i + 1)
            }
        }
        return try next(0)
    }

    /// Throws the server's error for a failed result.
    private func check(_ result: OpaquePointer?, context: String) throws {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK else { return }
        guard let result else {
            throw StorageError.engine(code: 0, message: "\(Self.trimmed(PQerrorMessage(handle))) (while running \(context.statementExcerpt) on \(location))")
        }
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
        let message = Self.trimmed(PQresultErrorMessage(result))
        throw StorageError.engine(code: PostgresSQLState.code(of: state), message: "\(message) (SQLSTATE \(state), while running \(context.statementExcerpt) on \(location))")
    }

    static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "unknown error" }
        return String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// SQLSTATE codes, packed into the `code` of `StorageError.engine` (six bits per character,
/// as the server packs them).
enum PostgresSQLState {
    static let uniqueViolation = code(of: "23505")
    static let numericValueOutOfRange = code(of: "22003")
    static let serializationFailure = code(of: "40001")
    static let deadlockDetected = code(of: "40P01")

    static func code(of state: String) -> Int {
        var code = 0
        for (i, byte) in state.utf8.prefix(5).enumerated() {
            code |= Int((byte &- 48) & 0x3F) << (6 * i)
        }
        return code
    }
}
