import Testing
@testable import Relaydeck

@Suite struct SystemRandomTests {
    /// Small draws come from the pool: across many refills (512 bytes each) no two 10-byte
    /// draws are the same, and every byte value turns up (a pool handed out twice, or zeroed
    /// before use, would fail one or the other).
    @Test func smallDrawsAcrossManyRefillsAreAllDifferent() {
        let random = SystemRandom()
        var seen = Set<[UInt8]>()
        var values = Set<UInt8>()
        for _ in 0..<5_000 {
            let draw = random.bytes(10)
            #expect(draw.count == 10)
            seen.insert(draw)
            values.formUnion(draw)
        }
        #expect(seen.count == 5_000)
        #expect(values.count == 256)
    }

    /// Draws of every size up to past the pooled limit, so some straddle the pool's end.
    @Test func drawsOfEverySizeAreFilledAndDiffer() {
        let random = SystemRandom()
        for count in 1...(SystemRandom.pooledDrawLimit * 3) {
            let first = random.bytes(count)
            let second = random.bytes(count)
            #expect(first.count == count && second.count == count)
            if count >= 8 { #expect(first != second, "size \(count)") }
        }
        // A large draw, from the kernel directly, is not all zeros.
        #expect(random.bytes(4096).contains { $0 != 0 })
    }
}
