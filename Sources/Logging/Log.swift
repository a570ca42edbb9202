#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Clock

/// Severity of a log line; `LOG_LEVEL` picks the lowest one written.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug = 0, info, warn, error

    public var name: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warn: "warn"
        case .error: "error"
        }
    }

    public init?(name: String) {
        guard let level = LogLevel.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    /// The syslog priority journald files the line under (`journalctl -p`): err, warning,
    /// info, debug.
    public var syslogPriority: Int {
        switch self {
        case .debug: 7
        case .info: 6
        case .warn: 4
        case .error: 3
        }
    }

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// `LOG_FORMAT`: one line of `key=value` text, or one JSON object, per event.
public enum LogFormat: Int, Sendable {
    case text = 0, json

    public init?(name: String) {
        switch name {
        case "text": self = .text
        case "json": self = .json
        default: return nil
        }
    }
}

/// The process-wide logger. Lines go to stderr, one `write(2)` each, so lines from the
/// loop thread and a helper thread never interleave. The level and format are atomics:
/// they are set once at start, but reading them is cheap from any thread. When stderr is
/// the journal, each line starts with its `<N>` priority and has no time of its own.
public enum Log {
    private static let level = Atomic<Int>(LogLevel.info.rawValue)
    private static let format = Atomic<Int>(LogFormat.text.rawValue)
    private static let journal = Atomic<Bool>(false)
    /// Tests capture lines here instead of stderr.
    private static let sink = Mutex<(@Sendable (String) -> Void)?>(nil)

    public static func configure(level: LogLevel, format: LogFormat, journal: Bool = false) {
        Self.level.store(level.rawValue, ordering: .relaxed)
        Self.format.store(format.rawValue, ordering: .relaxed)
        Self.journal.store(journal, ordering: .relaxed)
    }

    /// Whether lines go to the journal (set by `configure`); `printError`'s lines follow it.
    public static var toJournal: Bool { journal.load(ordering: .relaxed) }

    public static func capture(_ sink: (@Sendable (String) -> Void)?) {
        Self.sink.withLock { $0 = sink }
    }

    @inline(__always)
    public static func enabled(_ level: LogLevel) -> Bool {
        level.rawValue >= Self.level.load(ordering: .relaxed)
    }

    public static func debug(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> KeyValuePairs<String, String> = [:]) {
        if enabled(.debug) { write(.debug, message(), fields()) }
    }

    public static func info(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> KeyValuePairs<String, String> = [:]) {
        if enabled(.info) { write(.info, message(), fields()) }
    }

    public static func warn(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> KeyValuePairs<String, String> = [:]) {
        if enabled(.warn) { write(.warn, message(), fields()) }
    }

    public static func error(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> KeyValuePairs<String, String> = [:]) {
        if enabled(.error) { write(.error, message(), fields()) }
    }

    static func write(_ level: LogLevel, _ message: String, _ fields: KeyValuePairs<String, String>) {
        let json = format.load(ordering: .relaxed) == LogFormat.json.rawValue
        let line = LogLine.render(level: level, message: message, fields: fields, json: json,
                                  journal: journal.load(ordering: .relaxed), unixMillis: SystemClock.shared.wallMillis)
        if let sink = sink.withLock({ $0 }) {
            sink(line)
            return
        }
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(2, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { break }
            }
        }
    }

}
