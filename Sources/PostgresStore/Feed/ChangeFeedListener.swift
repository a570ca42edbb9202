import EventLoop
import Postgres
import Relaydeck

/// A node's ear on the change feed (`ChangeFeed`): a connection of its own that LISTENs on
/// `ChangeFeed.channel`, and on each notification, and after each (re)connect, reads the rows
/// after the last number it handled, a page at a time, handing each change another node wrote
/// to `onChange`, in order, once. A notification carries nothing but a wake-up: what to read
/// is always "after `last`", so notifications lost with a connection, or merged, lose nothing.
///
/// A lost connection (the server gone, its process ended, a read that failed) is made again
/// at the pace of `backoff`, the store's own (`ReconnectBackoff`: its first wait, doubled after
/// each failed attempt up to its cap), then LISTENs and reads what it missed. Rows pruned meanwhile, or a row this binary cannot read, are told to
/// `onMissed`: the node cannot know which accounts they were of, so its streams start again.
///
/// Everything runs on the loop: the connection's callbacks, and the reads as tasks on it
/// (`EventLoop.startTask`). Loop thread only; not Sendable. The owner calls `stop`.
public final class ChangeFeedListener {
    /// This node's name, as its appends write it: its own rows are passed over (it published
    /// them itself after its COMMIT).
    public let node: String
    /// Rows read per statement. The largest change is 1 MiB (`Change.feedMaxBytes`), so a page
    /// stays under the client's 64 MiB for a statement's rows.
    public var pageSize = 32
    public var backoff = ReconnectBackoff()
    /// Each change of another node, in commit order, once.
    public var onChange: ((Change) -> Void)?
    /// Rows after `last` are gone or unreadable: every stream must start again.
    public var onMissed: (() -> Void)?

    /// The last number handled; nil until the first connection read the head (a node that
    /// starts has nothing to catch up on).
    public private(set) var last: Int64?
    /// Whether the connection is up and LISTENing.
    public private(set) var isListening = false
    /// Connections made, the first included.
    public private(set) var connections = 0

    private let connector: PostgresConnector
    private let loop: EventLoop
    private var connection: PostgresConnection?
    private var session: PostgresSession?
    /// Each connection's number: a read or a callback of an earlier one does nothing.
    private var generation = 0
    private var failures = 0
    private var retryTimer: LoopTimer?
    private var reading = false
    private var readAgain = false
    private var stopped = false

    /// `after`: the number to read after from the start; nil reads from the head.
    public init(connector: PostgresConnector, loop: EventLoop, node: String, after: Int64? = nil) {
        self.connector = connector
        self.loop = loop
        self.node = node
        last = after
    }

    /// The server process of the connection, while there is one.
    public var processID: Int32? { connection?.processID }

    public func start() {
        precondition(!stopped && connections == 0 && retryTimer == nil, "a ChangeFeedListener starts once")
        connect()
    }

    /// Closes the connection and ends every attempt; nothing is handed on after it.
    public func stop() {
        stopped = true
        generation += 1
        if let retryTimer { loop.cancel(retryTimer) }
        retryTimer = nil
        connection?.close()
        connection = nil
        session = nil
        isListening = false
    }

    private func connect() {
        connector.connect { [weak self] result in
            guard let self, !stopped else {
                if case .success(let connection) = result { connection.close() }
                return
            }
            switch result {
            case .success(let connection): listen(on: connection)
            case .failure: retryLater()
            }
        }
    }

    private func listen(on connection: PostgresConnection) {
        generation += 1
        let generation = generation
        connections += 1
        self.connection = connection
        let session = PostgresSession(connection)
        self.session = session
        connection.onNotification = { [weak self] _ in self?.wake(generation) }
        connection.onClose = { [weak self] _ in self?.lost(generation) }
        loop.startTask { [weak self] in
            do {
                try await session.execute("LISTEN \(ChangeFeed.channel)")
                var head: Int64?
                if self?.last == nil { head = try await ChangeFeed.head(in: session) }
                guard let self, generation == self.generation else { return }
                if last == nil { last = head }
                isListening = true
                failures = 0
                wake(generation)
            } catch {
                self?.drop(generation)
            }
        }
    }

    /// Reads now, or once the read under way ends.
    private func wake(_ generation: Int) {
        guard generation == self.generation, isListening else { return }
        if reading {
            readAgain = true
            return
        }
        reading = true
        loop.startTask { [weak self] in
            await self?.readAll(generation)
        }
    }

    /// Pages until a page comes short and no notification came meanwhile.
    private func readAll(_ generation: Int) async {
        defer { if generation == self.generation { reading = false } }
        guard let session else { return }
        do {
            repeat {
                readAgain = false
                var full = true
                while full, generation == self.generation, let after = last {
                    let page = try await ChangeFeed.read(after: after, limit: pageSize, in: session)
                    guard generation == self.generation else { return }
                    handle(page, after: after)
                    full = page.entries.count == pageSize
                }
            } while readAgain && generation == self.generation
        } catch {
            drop(generation)
        }
    }

    private func handle(_ page: ChangeFeedPage, after: Int64) {
        if page.missed { onMissed?() }
        for entry in page.entries where entry.seq > last ?? after {
            last = entry.seq
            guard entry.node != node else { continue }
            switch entry.change {
            case .success(let change): onChange?(change)
            case .failure: onMissed?()
            }
            if stopped { return }
        }
        if page.entries.isEmpty { last = page.last }
    }

    /// A read or the LISTEN failed: the connection is given up, as if lost.
    private func drop(_ generation: Int) {
        guard generation == self.generation else { return }
        connection?.close()
        lost(generation)
    }

    private func lost(_ generation: Int) {
        guard generation == self.generation, !stopped else { return }
        self.generation += 1
        connection = nil
        session = nil
        isListening = false
        reading = false
        readAgain = false
        retryLater()
    }

    /// The backoff's first wait after a loss or the first failed attempt, doubled after each
    /// further one, at most its cap.
    private func retryLater() {
        failures += 1
        retryTimer = loop.schedule(after: backoff.delay(afterFailures: failures)) { [weak self] in
            guard let self, !stopped else { return }
            retryTimer = nil
            connect()
        }
    }
}

@available(*, unavailable, message: "a ChangeFeedListener belongs to the loop thread")
extension ChangeFeedListener: Sendable {}
