@testable import API
import Testing

/// The exposition writer: the lines Prometheus' parser expects, whatever a value holds.
@Suite struct MetricsTextTests {
    @Test("a family starts with its HELP and TYPE lines, and a help text cannot break its line")
    func helpAndType() {
        var text = MetricsText()
        text.family("relaydeck_x_total", .counter, "Back\\slash and\nnew line.")
        text.sample("relaydeck_x_total", 3)
        #expect(String(decoding: text.bytes, as: UTF8.self) == """
            # HELP relaydeck_x_total Back\\\\slash and\\nnew line.
            # TYPE relaydeck_x_total counter
            relaydeck_x_total 3

            """)
    }

    @Test("label values escape backslash, double quote and new line, and nothing else")
    func labelEscaping() {
        var text = MetricsText()
        text.sample("m", [("a", #"say "hi"\now"#), ("b", "line\nbreak"), ("c", "{/v1/tasks/{task_id}},=")], 1)
        #expect(String(decoding: text.bytes, as: UTF8.self)
            == #"m{a="say \"hi\"\\now",b="line\nbreak",c="{/v1/tasks/{task_id}},="} 1"# + "\n")
    }

    @Test("histogram buckets are cumulative, end with +Inf equal to the count, then _sum and _count")
    func histogram() {
        var text = MetricsText()
        text.histogram("h", [("group", "task")], bounds: [1_000, 250_000, 2_000_000], counts: [2, 0, 5, 1][...],
                       sumMicros: 3_500_250)
        #expect(String(decoding: text.bytes, as: UTF8.self) == """
            h_bucket{group="task",le="0.001"} 2
            h_bucket{group="task",le="0.25"} 2
            h_bucket{group="task",le="2"} 7
            h_bucket{group="task",le="+Inf"} 8
            h_sum{group="task"} 3.50025
            h_count{group="task"} 8

            """)
    }

    @Test("seconds are written from microseconds without an exponent or trailing zeros")
    func secondsText() {
        #expect(MetricsText.secondsText(0) == "0")
        #expect(MetricsText.secondsText(1) == "0.000001")
        #expect(MetricsText.secondsText(2_500) == "0.0025")
        #expect(MetricsText.secondsText(10_000_000) == "10")
        #expect(MetricsText.secondsText(12_340_000) == "12.34")
    }
}
