import EventLoop

/// A server-sent event stream on one connection. Frames are written at once; a client that
/// reads too slowly is cut off when its backlog passes the configured bound, so the server
/// never buffers without bound. A comment ping goes out after `pingInterval` of silence.
public final class EventStream {
    weak var connection: HTTPConnection?
    private let loop: EventLoop
    private let pingInterval: TimeSpan
    private var timer: LoopTimer?
    private var lastWrite: Instant
    /// Called once when the stream ends, whoever ended it (the client, a slow read, `end()`,
    /// the server stopping).
    public var onClose: ((EventStream) -> Void)?
    public private(set) var isOpen = true

    /// `connection` nil: a stream a test's recorder opened, which takes nothing.
    init(connection: HTTPConnection?, loop: EventLoop, pingInterval: TimeSpan) {
        self.connection = connection
        self.loop = loop
        self.pingInterval = pingInterval
        lastWrite = loop.now
    }

    func start() {
        timer = loop.schedule(after: pingInterval) { [weak self] in self?.pingIfQuiet() }
    }

    /// Writes `event: <name>` and one `data:` line. `data` must be one line (JSON is).
    /// Returns false when the stream is closed (or was just cut off).
    @discardableResult
    public func send(event: String, data: [UInt8]) -> Bool {
        var frame: [UInt8] = []
        frame.reserveCapacity(event.utf8.count + data.count + 16)
        frame.append(contentsOf: "event: ".utf8)
        frame.append(contentsOf: event.utf8)
        frame.append(contentsOf: "\ndata: ".utf8)
        frame.append(contentsOf: data)
        frame.append(contentsOf: "\n\n".utf8)
        return write(frame)
    }

    /// Writes a comment line (`: text`), which clients ignore; keeps proxies from timing out.
    @discardableResult
    public func comment(_ text: String) -> Bool {
        write(Array(": \(text)\n\n".utf8))
    }

    /// Ends the stream after what was written so far has gone out.
    public func end() {
        guard isOpen, let connection else { return }
        connection.endStream()
    }

    private func write(_ bytes: [UInt8]) -> Bool {
        guard isOpen, let connection else { return false }
        lastWrite = loop.now
        return connection.writeStream(bytes)
    }

    private func pingIfQuiet() {
        guard isOpen, connection != nil, let timer else { return }
        let due = lastWrite + pingInterval
        if loop.now >= due {
            comment("ping")
        }
        if isOpen {
            loop.reschedule(timer, at: lastWrite + pingInterval)
        }
    }

    /// The connection is gone.
    func closed() {
        guard isOpen else { return }
        isOpen = false
        if let timer { loop.cancel(timer) }
        timer = nil
        let onClose = self.onClose
        self.onClose = nil
        onClose?(self)
    }
}
