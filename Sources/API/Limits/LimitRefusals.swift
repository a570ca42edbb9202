/// How many requests each rate limit refused, for `/metrics`: one counter per rate limit of
/// the catalogue (`Limits.Rate`, whose `name` is the label), shared by the limiters that
/// count into it. Loop thread only.
final class LimitRefusals {
    typealias Limit = Limits.Rate

    private(set) var counts = [Int](repeating: 0, count: Limit.allCases.count)

    func refused(_ limit: Limit) {
        counts[limit.rawValue] += 1
    }

    func count(_ limit: Limit) -> Int { counts[limit.rawValue] }
}
