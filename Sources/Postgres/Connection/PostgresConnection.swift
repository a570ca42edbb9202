import EventLoop
import Logging
import TLS
import Transports

/// One connection to PostgreSQL on the loop: set up without blocking it (the name looked
/// up off the loop, a non-blocking TCP or Unix connect, `SSLRequest` and TLS when the settings
/// ask, the authentication exchange), then batches of statements pipelined over it, each
/// sent in one write and answered in order (`run`), and the notifications of the channels it
/// LISTENs on (`onNotification`).
///
/// Ownership: made by `PostgresConnector.connect` and handed to one owner, which closes it
/// (`close`) when done; while open, the loop's registration keeps it alive. Loop thread only;
/// not Sendable. Every bound of `PostgresLimits` applies: a connection that breaks one fails
/// what it was doing with a typed error and closes, it never waits without a deadline.
public final class PostgresConnection: IOHandler {
    enum Phase {
        /// The name lookup and the connect (the dialer, or the Unix socket's connect).
        case dialing
        /// `SSLRequest` sent; one byte, `S` or `N`, answers it.
        case negotiatingTLS
        case handshaking
        /// The start-up message sent: authentication, then the server's parameters.
        case authenticating
        case ready
        case closed
    }

    public let settings: PostgresSettings
    public let limits: PostgresLimits
    let loop: EventLoop
    let tlsContext: TLSClientContext?
    var phase = Phase.dialing
    var dialer: TransportDialer?
    var transport: (any Transport)?
    var registration: IORegistration?
    var interest: Interest = []
    var framer: MessageFramer
    var output: [[UInt8]] = []
    var outputOffset = 0
    var readBuffer: [UInt8]
    var timer: LoopTimer?
    var readSoon: LoopTimer?
    var authenticator: Authenticator?
    var connectCompletion: ((Result<PostgresConnection, PostgresError>) -> Void)?
    var pipeline: Pipeline
    var prepared: PreparedStatements
    /// A FATAL error the server sent before closing: the reason given to what was in flight.
    var closingError: PostgresError?

    /// The server's run-time parameters as it reported them (`server_version`, `TimeZone`).
    public internal(set) var serverParameters: [String: String] = [:]
    /// The server process serving this connection (what `pg_terminate_backend` takes).
    public internal(set) var processID: Int32?
    /// Each NOTIFY on a channel this connection LISTENs on, on the loop, in the order sent.
    public var onNotification: ((PostgresNotification) -> Void)?
    /// Called once when an open connection ends by itself (the server closed it, a bound was
    /// broken, a batch timed out), after the batches in flight got their errors. Not called
    /// for `close`.
    public var onClose: ((PostgresError) -> Void)?

    init(settings: PostgresSettings, limits: PostgresLimits, loop: EventLoop, tlsContext: TLSClientContext?) {
        self.settings = settings
        self.limits = limits
        self.loop = loop
        self.tlsContext = tlsContext
        framer = MessageFramer(limits: limits)
        pipeline = Pipeline(maxResultBytes: limits.maxResultBytes)
        prepared = PreparedStatements(capacity: limits.maxPreparedStatements)
        readBuffer = [UInt8](repeating: 0, count: 65_536)
    }

    /// Whether statements can be sent.
    public var isOpen: Bool { phase == .ready }

    /// Whether the connection is TLS.
    public var isTLS: Bool { transport is TLSTransport }

    /// Batches sent and not answered yet.
    public var batchesInFlight: Int { pipeline.count }

    /// Statements this connection has prepared by name.
    public var preparedStatementCount: Int { prepared.count }

    /// Batches sent so far: the round trips to the server (tests count them).
    public private(set) var batchesSent = 0

    /// Sends `statements` as one batch: each parsed once per connection (by SQL text) and
    /// then only bound and executed, all in one write with one Sync at the end. Outside a
    /// transaction block the batch is one implicit transaction. `completion` runs on the
    /// loop with one outcome per statement, or with the error that failed the batch whole
    /// (the connection lost or closed, the batch's time up): then what the server did is
    /// unknown.
    public func run(_ statements: [PostgresQuery], completion: @escaping (Result<BatchResult, PostgresError>) -> Void) {
        guard phase == .ready else {
            let error = closingError ?? PostgresError(.closed, phase == .closed ? "the connection is closed" : "the connection is not set up yet")
            loop.runSoon { completion(.failure(error)) }
            return
        }
        guard pipeline.count < limits.maxBatchesInFlight else {
            let error = PostgresError(.busy, "\(limits.maxBatchesInFlight) batches wait for answers already")
            loop.runSoon { completion(.failure(error)) }
            return
        }
        var writer = MessageWriter(capacity: 64 * statements.count + 16)
        var planned: [Pipeline.Statement] = []
        planned.reserveCapacity(statements.count)
        for statement in statements {
            let (plan, columns) = prepared.planWithColumns(statement.sql)
            switch plan {
            case .bind(let name):
                planned.append(Pipeline.Statement(sql: statement.sql, isCommit: statement.isCommit, parsedName: nil,
                                                  columns: columns))
                writer.bind(statement: name, statement.values)
            case .parse(let name):
                planned.append(Pipeline.Statement(sql: statement.sql, isCommit: statement.isCommit, parsedName: name))
                writer.parse(name: name, sql: statement.sql)
                writer.describeStatement(name)
                writer.bind(statement: name, statement.values)
            }
            writer.execute()
        }
        writer.sync()
        pipeline.append(Pipeline.Batch(statements: planned, deadline: loop.now + limits.queryTimeout, completion: completion))
        batchesSent += 1
        send(writer.bytes)
        armTimer()
    }

    /// One statement alone, for its result.
    public func query(_ sql: String, _ values: [PostgresValue] = [], completion: @escaping (Result<QueryResult, PostgresError>) -> Void) {
        run([PostgresQuery(sql, values)]) { result in
            completion(result.flatMap { batch in Result { () throws(PostgresError) in try batch.result(0) } })
        }
    }

    /// Ends the connection: Terminate if it is set up, then the socket closes; batches in
    /// flight fail with `.closed`. `onClose` is not called.
    public func close() {
        guard phase != .closed else { return }
        // Best effort, and only between messages (a batch half written would take it as its
        // own bytes): the socket takes five bytes, or the server sees the end anyway.
        if phase == .ready, output.isEmpty, let transport {
            var writer = MessageWriter()
            writer.terminate()
            _ = try? transport.write([writer.bytes][...], skipping: 0)
        }
        onClose = nil
        shutDown(PostgresError(.closed, "closed by its owner"))
    }
}

@available(*, unavailable, message: "a PostgresConnection belongs to the loop thread")
extension PostgresConnection: Sendable {}
