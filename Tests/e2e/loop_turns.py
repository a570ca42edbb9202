"""The event loop's turns as the server counts them in CPU time (`relaydeck_loop_turn_cpu_seconds`
on /metrics), read through prometheus_client's parser.

A test that asks whether a client can hold the loop reads these before and after its load:
the loop thread's own CPU time per turn does not grow when the load generators, on the same
two cores, take the CPU from the server, which a /health latency measured from outside does.
"""

from prometheus_client.parser import text_string_to_metric_families

from raw_http import RawConnection, request_bytes

# The token the tests that read the turns start their server with (METRICS_TOKEN).
METRICS_TOKEN = "e2e-loop-turns-token-4d81b7"
HISTOGRAM = "relaydeck_loop_turn_cpu_seconds"


def turn_buckets(port: int) -> dict[float, float]:
    """{upper bound in seconds (inf for +Inf): cumulative turns}, read on a connection of its own."""
    with RawConnection(port, timeout=10) as conn:
        conn.send(request_bytes("GET", "/metrics", None, {"Authorization": f"Bearer {METRICS_TOKEN}"}))
        response = conn.read_response()
    assert response.status == 200, response
    buckets = {}
    for family in text_string_to_metric_families(response.body.decode()):
        for sample in family.samples:
            if sample.name == HISTOGRAM + "_bucket":
                buckets[float(sample.labels["le"])] = sample.value
    assert float("inf") in buckets, sorted(buckets)
    return buckets


def turns_longer_than(before: dict[float, float], after: dict[float, float], bound: float) -> tuple[int, int]:
    """(turns between the two readings, those of them over `bound` seconds of CPU); `bound`
    must be one of the histogram's bounds."""
    assert bound in after, (bound, sorted(after))
    total = after[float("inf")] - before[float("inf")]
    within = after[bound] - before[bound]
    return int(total), int(total - within)
