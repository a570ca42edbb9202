import Clock
import Crypto
import EventLoop
import HTTP
import Relaydeck

/// `GET /metrics` in the Prometheus text format, for the operator's monitoring. Only with
/// `METRICS_TOKEN` set, and only with that token as `Authorization: Bearer`: the route has no
/// account or key behind it, so the gate does not look at it, it has no activity entry, and a
/// wrong token is the contract's `401`. Without the setting the route does not exist (`404`).
/// A scrape is counted like any request, after its answer, so it moves its own counter by one.
struct MetricsRoutes: RouteGroup {
    private let context: APIContext
    private let token: [UInt8]?

    init(_ context: APIContext) {
        self.context = context
        token = context.configuration.metricsToken
    }

    var routes: [Route] {
        guard token != nil else { return [] }
        return [Route("/metrics", [Endpoint(.get, .anyone { call in
            try checkToken(call.request.head)
            return .respond(await answer())
        })])]
    }

    func answer() async -> HTTPResponse {
        let body = await exposition()
        return HTTPResponse(status: 200, headers: [("Content-Type", MetricsText.contentType), ("Cache-Control", "no-store")],
                            body: body)
    }

    /// One `Authorization: Bearer` header with the token, compared in constant time; without
    /// a token set (only `METRICS_LISTEN` then serves the metrics) there is nothing to check.
    func checkToken(_ head: HTTPRequestHead) throws(APIError) {
        guard let token else { return }
        let values = head.headers("authorization")
        guard values.count == 1 else { throw .unauthorized }
        let parts = values[0].split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw .unauthorized }
        guard constantTimeEquals(Array(parts[1].trimmingCharacters(in: " \t").utf8), token) else { throw .unauthorized }
    }

    func exposition() async -> [UInt8] {
        var text = MetricsText()
        context.requestMetrics?.write(to: &text)
        text.family("relaydeck_rate_limit_refusals_total", .counter, "Requests a rate limit refused (429), by limit.")
        for limit in LimitRefusals.Limit.allCases {
            text.sample("relaydeck_rate_limit_refusals_total", [("limit", limit.name)], context.limitRefusals.count(limit))
        }
        text.family("relaydeck_scope_refusals_total", .counter,
                    "Requests, tool calls and waiting calls refused because the key lacks a scope, by scope and surface.")
        for scope in Scope.allCases {
            for surface in ActivityEntry.Surface.allCases {
                text.sample("relaydeck_scope_refusals_total", [("scope", scope.rawValue), ("surface", surface.rawValue)],
                            context.scopeRefusals.count(scope, surface: surface))
            }
        }
        text.family("relaydeck_open_connections", .gauge, "HTTP connections open now.")
        text.sample("relaydeck_open_connections", context.openConnections?() ?? 0)
        text.family("relaydeck_event_streams", .gauge, "GET /v1/events streams open now.")
        text.sample("relaydeck_event_streams", context.eventStreams.count)
        text.family("relaydeck_parked_calls", .gauge, "Calls waiting for a change now (long polls, waiting MCP tools).")
        text.sample("relaydeck_parked_calls", context.wakeups.count)
        let store = context.services.store
        let up = store.isHealthy()
        text.family("relaydeck_store_up", .gauge, "1 while the database answers, 0 while it fails.")
        text.sample("relaydeck_store_up", up ? 1 : 0)
        // SQLite's own: PostgreSQL's WAL is the database server's to report.
        if let sqlite = context.services.sqlite {
            text.family("relaydeck_store_wal_frames", .gauge, "Frames in the WAL file after the last commit.")
            text.sample("relaydeck_store_wal_frames", sqlite.walFrames)
            if let bytes = sqlite.walFileBytes {
                text.family("relaydeck_store_wal_bytes", .gauge, "The size of the WAL file on disk.")
                text.sample("relaydeck_store_wal_bytes", bytes)
            }
            text.family("relaydeck_store_checkpoint_duration_seconds", .histogram,
                        "How long WAL checkpoints took: on the checkpoint thread (each request's passes together), or on the loop when the thread fell behind.")
            let checkpoints = [("checkpointer", sqlite.threadCheckpoints), ("loop", sqlite.loopCheckpoints)]
            for (thread, times) in checkpoints {
                text.histogram("relaydeck_store_checkpoint_duration_seconds", [("thread", thread)], bounds: Store.CheckpointFigures.boundsMicros,
                               counts: times.counts[...], sumMicros: times.sumMicros)
            }
            text.family("relaydeck_store_checkpoint_failures_total", .counter, "WAL checkpoints that failed (a full disk, a file gone).")
            for (thread, times) in checkpoints {
                text.sample("relaydeck_store_checkpoint_failures_total", [("thread", thread)], times.failures)
            }
        }
        // A failing store has no outbox figures: the series are left out, not made up.
        if up, let outbox = try? await OutboxDepth.read(store) {
            text.family("relaydeck_push_outbox_jobs", .gauge,
                        "Pushes written and not sent yet (counted up to \(OutboxDepth.cap)).")
            text.sample("relaydeck_push_outbox_jobs", outbox.jobs)
            text.family("relaydeck_push_outbox_oldest_age_seconds", .gauge,
                        "How long the oldest push not sent yet has waited; 0 when none waits.")
            let age = outbox.oldestCreatedAt.map { max(0, context.services.clock.wallMillis - $0) } ?? 0
            text.sample("relaydeck_push_outbox_oldest_age_seconds", seconds: Int(age) * 1000)
        }
        if up, let purge = try? await PurgeBacklog.read(store) {
            text.family("relaydeck_purge_pending_keys", .gauge,
                        "Deleted keys whose data the purge has not removed yet (counted up to \(PurgeBacklog.cap)).")
            text.sample("relaydeck_purge_pending_keys", purge.keys)
            text.family("relaydeck_purge_pending_accounts", .gauge,
                        "Deleted accounts the purge has not removed yet (counted up to \(PurgeBacklog.cap)).")
            text.sample("relaydeck_purge_pending_accounts", purge.accounts)
            text.family("relaydeck_purge_pending_text_bytes", .gauge,
                        "The text bytes the pending keys' tasks, questions and inbox items still hold.")
            text.sample("relaydeck_purge_pending_text_bytes", purge.textBytes)
            text.family("relaydeck_purge_oldest_age_seconds", .gauge,
                        "How long ago the oldest deletion still waiting for the purge was made; 0 when none waits.")
            let age = purge.oldestDeletedAt.map { max(0, context.services.clock.wallMillis - $0) } ?? 0
            text.sample("relaydeck_purge_oldest_age_seconds", seconds: Int(age) * 1000)
        }
        text.family("relaydeck_pushes_total", .counter,
                    "Pushes whose send ended, by service, kind (apns-push-type) and outcome (sent, the service's reason, other, unreachable).")
        for sample in context.services.pushCounts.samples {
            text.sample("relaydeck_pushes_total", [("service", sample.service), ("kind", sample.kind), ("outcome", sample.outcome)],
                        sample.count)
        }
        let turns = context.loop.turnCPU
        text.family("relaydeck_loop_turn_cpu_seconds", .histogram,
                    "The CPU time of the event loop's turns (its events, queued work and timers), from the end of the turn before.")
        text.histogram("relaydeck_loop_turn_cpu_seconds", [], bounds: TurnCPU.boundsMicros, counts: turns.counts[...],
                       sumMicros: turns.sumMicros)
        text.family("relaydeck_loop_longest_turn_cpu_seconds", .gauge, "The CPU time of the longest event loop turn since the start.")
        text.sample("relaydeck_loop_longest_turn_cpu_seconds", seconds: turns.longestMicros)
        text.family("relaydeck_build_info", .gauge, "Always 1; the version of the running binary as a label.")
        text.sample("relaydeck_build_info", [("version", context.configuration.serverVersion)], 1)
        return text.bytes
    }
}
