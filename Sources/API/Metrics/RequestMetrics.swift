import HTTP

/// The request counters behind `/metrics`: how many requests each route answered, by method
/// and status, and how long the ones answered at once took, by route group. Counting one is a
/// few integer increments at indices computed from the route's position in the router, its
/// method and its status: no string is built and no dictionary is looked up per request.
/// Every label value comes from the route table or a fixed list, so the series are bounded by
/// it whatever the paths are (an unmatched path is one value). Loop thread only.
final class RequestMetrics {
    /// The statuses with a series of their own; any other is counted as `other`.
    static let statuses = [200, 201, 202, 204, 206, 301, 302, 304, 307, 308, 400, 401, 403, 404, 405, 406, 408, 409, 410,
                           411, 412, 413, 414, 415, 416, 422, 428, 429, 431, 500, 501, 502, 503, 504, 505]
    /// GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, and any other method as `other` (a
    /// method name a client made up is not a label value).
    static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"]
    /// The latency buckets' upper bounds in microseconds: 1 ms to 10 s.
    static let bounds = [1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000]
    static let unmatched = "(unmatched)"

    /// Index `status` gives the slot of a status (0 is `other`).
    private static let statusSlot: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 600)
        for (index, status) in statuses.enumerated() { table[status] = UInt8(index + 1) }
        return table
    }()

    /// The route patterns in router order, then the unmatched path.
    let routes: [String]
    /// The route group of each route (the last one is the unmatched path's own).
    let groupOfRoute: [Int]
    let groups: [String]
    private var tallies: Tallies

    init(routes patterns: [String], groupOfRoute: [Int], groups: [String]) {
        routes = patterns + [Self.unmatched]
        self.groups = groups + [Self.unmatched]
        self.groupOfRoute = groupOfRoute + [groups.count]
        tallies = Tallies(routes: routes.count, groups: self.groups.count)
    }

    /// Counts one finished request. `route` is its index in the router, nil when no route
    /// matched; `micros` its duration, nil when it waited or streamed (its duration is the
    /// wait's, not the server's work).
    func count(route: Int?, method: HTTPMethod, status: Int, micros: Int?) {
        let routeSlot = route ?? routes.count - 1
        tallies.add(route: routeSlot, method: Self.methodSlot(method), status: status,
                    group: groupOfRoute[routeSlot], micros: micros)
    }

    /// The counters in one value, so that a request is one access to the class's storage
    /// (each access to a class's stored property is checked for exclusivity at run time: with
    /// three arrays apart, the checks cost more than the counting). The tables are copied in,
    /// so the hot path reads no lazily made global.
    private struct Tallies {
        /// routes × methods × (statuses + 1), flat.
        var counts: [Int]
        /// groups × (bounds + 1), each bucket on its own (made cumulative when written).
        var buckets: [Int]
        var sums: [Int]
        let statusSlots = RequestMetrics.statusSlot
        let bounds = RequestMetrics.bounds
        let statusWidth = RequestMetrics.statuses.count + 1
        let methodCount = RequestMetrics.methods.count

        init(routes: Int, groups: Int) {
            counts = [Int](repeating: 0, count: routes * RequestMetrics.methods.count * (RequestMetrics.statuses.count + 1))
            buckets = [Int](repeating: 0, count: groups * (RequestMetrics.bounds.count + 1))
            sums = [Int](repeating: 0, count: groups)
        }

        mutating func add(route: Int, method: Int, status: Int, group: Int, micros: Int?) {
            let statusSlot = status >= 0 && status < statusSlots.count ? Int(statusSlots[status]) : 0
            counts[(route * methodCount + method) * statusWidth + statusSlot] += 1
            guard let micros else { return }
            var bucket = 0
            while bucket < bounds.count, micros > bounds[bucket] { bucket += 1 }
            buckets[group * (bounds.count + 1) + bucket] += 1
            sums[group] += micros
        }
    }

    static func methodSlot(_ method: HTTPMethod) -> Int {
        switch method {
        case .get: 0
        case .head: 1
        case .post: 2
        case .put: 3
        case .patch: 4
        case .delete: 5
        case .options: 6
        case .other: 7
        }
    }

    /// The series of the requests counted so far; a combination never seen has no series.
    func write(to text: inout MetricsText) {
        text.family("relaydeck_http_requests_total", .counter,
                    "Requests answered, by route pattern, method and status.")
        let statusLabels = ["other"] + Self.statuses.map(String.init)
        for route in routes.indices {
            for method in Self.methods.indices {
                let base = (route * Self.methods.count + method) * (Self.statuses.count + 1)
                for status in 0...Self.statuses.count where tallies.counts[base + status] > 0 {
                    text.sample("relaydeck_http_requests_total",
                                [("route", routes[route]), ("method", Self.methods[method]), ("status", statusLabels[status])],
                                tallies.counts[base + status])
                }
            }
        }
        text.family("relaydeck_http_request_duration_seconds", .histogram,
                    "Time from the first byte to the end of the answer of requests answered at once (no wait, no stream), by route group.")
        let width = Self.bounds.count + 1
        for group in groups.indices {
            let slice = tallies.buckets[(group * width)..<((group + 1) * width)]
            guard slice.contains(where: { $0 > 0 }) else { continue }
            text.histogram("relaydeck_http_request_duration_seconds", [("group", groups[group])], bounds: Self.bounds,
                           counts: slice, sumMicros: tallies.sums[group])
        }
    }
}
