import EventLoop

/// Work the endpoint needs before it can answer and that the loop must not wait for: a name
/// lookup, which blocks on a helper thread, or a fetch over the network. The request is held
/// with the turn's transaction committed and no lock taken, so other requests go on; once the
/// work ends, `start` hands back the rest of the endpoint, which runs like a write request of
/// its own (with the write lock, its answer after its COMMIT), after the credential is checked
/// again, since it may have been revoked meanwhile.
struct Pending {
    /// The rest of the endpoint, run on the loop once the work ended; it may await the store,
    /// as an endpoint's body does.
    typealias Rest = nonisolated(nonsending) () async throws -> Outcome

    /// How long the work may take; then (or when the server stops) the request gets `expired`.
    var timeout: TimeSpan
    /// Starts the work; it calls `resume` once, on the loop, with the rest of the endpoint. A
    /// `resume` after the request ended (its time was up, its client went away) does nothing.
    var start: (_ resume: @escaping (_ rest: @escaping Rest) -> Void) -> Void
    /// The answer when the work did not end in time.
    var expired: APIError
}
