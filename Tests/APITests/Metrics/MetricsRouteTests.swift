@testable import API
import Clock
import HTTP
import Relaydeck
import TestSupport
import Testing

/// `GET /metrics`: behind `METRICS_TOKEN`, counting by route pattern, never by path.
@Suite struct MetricsRouteTests {
    static let token = "metrics-token-0123456789"

    static func harness() throws -> APIHarness {
        var configuration = APIConfiguration()
        configuration.metricsToken = Array(token.utf8)
        configuration.serverVersion = "1.2.3"
        return try APIHarness(configuration: configuration)
    }

    @Test("without METRICS_TOKEN there is no /metrics route")
    func offByDefault() throws {
        let api = try APIHarness()
        let answer = try api.send("GET", "/metrics", [bearer(Self.token)])
        #expect(answer.status == 404)
    }

    @Test("a missing, wrong or other kind of credential is the contract's 401")
    func tokenRequired() throws {
        let api = try Self.harness()
        let account = try api.createAccount()
        for headers in [[], [bearer("metrics-token-012345678")], [bearer(Self.token + "x")], [bearer(account.token)],
                        [("Authorization", "Basic " + Self.token)], [bearer(Self.token), bearer(Self.token)],
                        [apiKey(Self.token)]] {
            let answer = try api.send("GET", "/metrics", headers)
            #expect(answer.status == 401, "\(headers)")
            #expect(answer.text == errorBody("unauthorized", "The credential is missing or wrong."))
            #expect(answer.record.principal == nil)
        }
        let answer = try api.send("GET", "/metrics", [bearer(Self.token)])
        #expect(answer.status == 200)
        #expect(answer.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        #expect(answer.text.contains("relaydeck_build_info{version=\"1.2.3\"} 1\n"))
        #expect(answer.text.contains("relaydeck_store_up 1\n"))
        #expect(answer.text.contains("relaydeck_push_outbox_jobs 0\n"))
        #expect(answer.text.contains("relaydeck_push_outbox_oldest_age_seconds 0\n"))
        #expect(answer.text.contains("\nrelaydeck_store_wal_frames "))
        // The store's checkpoints, by thread, and the purge backlog, empty.
        for thread in ["checkpointer", "loop"] {
            #expect(answer.text.contains("relaydeck_store_checkpoint_failures_total{thread=\"\(thread)\"} 0\n"))
            #expect(answer.text.contains("relaydeck_store_checkpoint_duration_seconds_bucket{thread=\"\(thread)\",le=\"+Inf\"} "))
        }
        for name in ["relaydeck_purge_pending_keys", "relaydeck_purge_pending_accounts", "relaydeck_purge_pending_text_bytes",
                     "relaydeck_purge_oldest_age_seconds"] {
            #expect(answer.text.contains("\n\(name) 0\n"), "\(name)")
        }
        // With push off the family is there, with no sample.
        #expect(answer.text.contains("# TYPE relaydeck_pushes_total counter\n"))
        #expect(!answer.text.contains("\nrelaydeck_pushes_total{"))
    }

    @Test("each push counted shows under its service, kind and outcome, and nothing else does")
    func pushes() throws {
        let api = try Self.harness()
        let apns = api.services.pushCounts.service("apns", outcomes: ["sent", "Unregistered", "other"])
        apns.count(kind: "alert", outcome: "sent")
        apns.count(kind: "widgets", outcome: "Unregistered")
        apns.count(kind: "widgets", outcome: "dev_3f2b8c1e")
        let text = try api.send("GET", "/metrics", [bearer(Self.token)]).text
        #expect(text.contains("relaydeck_pushes_total{service=\"apns\",kind=\"alert\",outcome=\"sent\"} 1\n"))
        #expect(text.contains("relaydeck_pushes_total{service=\"apns\",kind=\"widgets\",outcome=\"Unregistered\"} 1\n"))
        #expect(text.contains("relaydeck_pushes_total{service=\"apns\",kind=\"widgets\",outcome=\"other\"} 1\n"))
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("relaydeck_pushes_total{") }.count == 3)
        #expect(!text.contains("dev_"))
    }

    @Test("a failing store is store_up 0, still answered, and has no outbox figures")
    func failingStore() throws {
        let directory = TemporaryDirectory()
        var configuration = APIConfiguration()
        configuration.metricsToken = Array(Self.token.utf8)
        let api = try APIHarness(configuration: configuration, storePath: directory.file("missing/relaydeck.db"))
        let answer = try api.send("GET", "/metrics", [bearer(Self.token)])
        #expect(answer.status == 200)
        #expect(answer.text.contains("relaydeck_store_up 0\n"))
        #expect(!answer.text.contains("relaydeck_push_outbox"))
        #expect(!answer.text.contains("relaydeck_purge_"))
    }

    @Test("requests are counted by route pattern, method and status; an unknown path is one label value")
    func countsByPattern() throws {
        let api = try Self.harness()
        let account = try api.createAccount()
        for number in 0..<5 {
            #expect(try api.send("GET", "/v1/tasks/tsk_missing\(number)", [bearer(account.token)]).status == 404)
            #expect(try api.send("GET", "/no/such/path/\(number)").status == 404)
        }
        #expect(try api.send("BREW", "/health").status == 405)
        let text = try api.send("GET", "/metrics", [bearer(Self.token)]).text
        #expect(text.contains(#"relaydeck_http_requests_total{route="/v1/tasks/{task_id}",method="GET",status="404"} 5"#))
        #expect(text.contains(#"relaydeck_http_requests_total{route="(unmatched)",method="GET",status="404"} 5"#))
        #expect(text.contains(#"relaydeck_http_requests_total{route="/v1/accounts",method="POST",status="201"} 1"#))
        #expect(text.contains(#"relaydeck_http_requests_total{route="/health",method="other",status="405"} 1"#))
        #expect(!text.contains("tsk_") && !text.contains("mca_") && !text.contains("BREW") && !text.contains("/no/such"))
        #expect(text.contains(#"relaydeck_http_request_duration_seconds_count{group="task"} 5"#))
        #expect(text.contains(#"relaydeck_http_request_duration_seconds_count{group="(unmatched)"} 5"#))

        // The scrape counted itself once, after its answer.
        let again = try api.send("GET", "/metrics", [bearer(Self.token)]).text
        #expect(again.contains(#"relaydeck_http_requests_total{route="/metrics",method="GET",status="200"} 1"#))
    }

    @Test("each rate limit's refusals are counted under its own name")
    func rateLimitRefusals() throws {
        var configuration = APIConfiguration()
        configuration.metricsToken = Array(Self.token.utf8)
        configuration.requestsPerMinute = 2
        configuration.accountsPerHour = 1
        let api = try APIHarness(configuration: configuration)
        let account = try api.createAccount()
        #expect(try api.send("POST", "/v1/accounts", body: "{}").status == 429)
        for _ in 0..<2 { #expect(try api.send("GET", "/v1/account", [bearer(account.token)]).status == 200) }
        for _ in 0..<3 { #expect(try api.send("GET", "/v1/account", [bearer(account.token)]).status == 429) }
        let text = try api.send("GET", "/metrics", [bearer(Self.token)]).text
        #expect(text.contains(#"relaydeck_rate_limit_refusals_total{limit="requests"} 3"#))
        #expect(text.contains(#"relaydeck_rate_limit_refusals_total{limit="accounts"} 1"#))
        #expect(text.contains(#"relaydeck_rate_limit_refusals_total{limit="notify_user"} 0"#))
        #expect(text.contains(#"relaydeck_http_requests_total{route="/v1/account",method="GET",status="429"} 3"#))
    }

    @Test("the latency of a request falls in its bucket, and its seconds into the sum")
    func latencyBuckets() throws {
        let metrics = RequestMetrics(routes: ["/a"], groupOfRoute: [0], groups: ["a"])
        metrics.count(route: 0, method: .get, status: 200, micros: 1_000)
        metrics.count(route: 0, method: .get, status: 200, micros: 30_000)
        metrics.count(route: 0, method: .get, status: 200, micros: 60_000_000)
        // A wait is counted as a request but has no latency.
        metrics.count(route: 0, method: .get, status: 200, micros: nil)
        metrics.count(route: nil, method: .get, status: 999, micros: nil)
        var text = MetricsText()
        metrics.write(to: &text)
        let written = String(decoding: text.bytes, as: UTF8.self)
        #expect(written.contains(#"relaydeck_http_requests_total{route="/a",method="GET",status="200"} 4"#))
        #expect(written.contains(#"relaydeck_http_requests_total{route="(unmatched)",method="GET",status="other"} 1"#))
        #expect(written.contains(#"_bucket{group="a",le="0.001"} 1"#))
        #expect(written.contains(#"_bucket{group="a",le="0.025"} 1"#))
        #expect(written.contains(#"_bucket{group="a",le="0.05"} 2"#))
        #expect(written.contains(#"_bucket{group="a",le="10"} 2"#))
        #expect(written.contains(#"_bucket{group="a",le="+Inf"} 3"#))
        #expect(written.contains(#"_sum{group="a"} 60.031"#))
        #expect(!written.contains(#"group="(unmatched)""#))
    }

    /// Not an assertion on time (the suite runs on loaded machines): the figure for the report.
    @Test("counting a request costs a few increments (prints the time per request)")
    func countingCost() {
        let metrics = RequestMetrics(routes: (0..<60).map { "/r\($0)" }, groupOfRoute: (0..<60).map { $0 / 5 },
                                     groups: (0..<12).map { "g\($0)" })
        let rounds = 2_000_000
        let start = SystemClock.shared.now
        for number in 0..<rounds {
            metrics.count(route: number % 60, method: .get, status: number & 1 == 0 ? 200 : 404, micros: number % 40_000)
        }
        let elapsed = SystemClock.shared.now - start
        print("RequestMetrics.count: \(elapsed.nanoseconds / Int64(rounds)) ns per request over \(rounds)")
        var text = MetricsText()
        metrics.write(to: &text)
        #expect(String(decoding: text.bytes, as: UTF8.self).contains(#"route="/r0",method="GET",status="200"}"#))
    }
}
