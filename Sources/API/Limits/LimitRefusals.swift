/// How many requests each rate limit refused, for `/metrics`: one counter per limit of
/// `overview.md#rate-limits` (and the web sign-in's own), shared by the limiters that count
/// into it. Loop thread only.
final class LimitRefusals {
    enum Limit: Int, CaseIterable {
        case requests, accounts, challenges, messages, notify, webSignIn, webChallenges

        /// The metrics label.
        var name: String {
            switch self {
            case .requests: "requests"
            case .accounts: "accounts"
            case .challenges: "challenges"
            case .messages: "messages"
            case .notify: "notify_user"
            case .webSignIn: "web_sign_in"
            case .webChallenges: "web_challenges"
            }
        }
    }

    private(set) var counts = [Int](repeating: 0, count: Limit.allCases.count)

    func refused(_ limit: Limit) {
        counts[limit.rawValue] += 1
    }

    func count(_ limit: Limit) -> Int { counts[limit.rawValue] }
}
