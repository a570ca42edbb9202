import HTTP

/// The event streams a web session opened, so that ending the session (sign-out, or removed
/// from the list) ends them too: a removed session's browser must stop hearing the account's
/// changes at once, not at its next reconnect. Loop thread only.
final class SessionStreams {
    private var bySession: [String: [EventStream]] = [:]

    func add(_ stream: EventStream, session: String) {
        bySession[session, default: []].append(stream)
    }

    func remove(_ stream: EventStream, session: String) {
        bySession[session]?.removeAll { $0 === stream }
        if bySession[session]?.isEmpty == true { bySession[session] = nil }
    }

    /// Ends every stream of `session`; their `closed` callbacks remove them.
    func end(session: String) {
        for stream in bySession.removeValue(forKey: session) ?? [] { stream.end() }
    }

    var count: Int { bySession.values.reduce(0) { $0 + $1.count } }
}
