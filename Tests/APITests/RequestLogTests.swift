@testable import API
import Testing

/// The request log line's `duration_ms`: milliseconds with three decimals, from microseconds.
@Suite struct RequestLogTests {
    @Test(arguments: [
        (Int64(0), "0.000"),
        (5, "0.005"),
        (50, "0.050"),
        (210, "0.210"),
        (999, "0.999"),
        (1_000, "1.000"),
        (1_234_567, "1234.567"),
    ])
    func durationsHaveThreeDecimals(micros: Int64, text: String) {
        #expect(APIHandler.millisText(micros) == text)
    }
}
