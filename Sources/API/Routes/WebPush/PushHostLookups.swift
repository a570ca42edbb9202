import EventLoop
import WebPush

/// The name lookups of subscriptions being stored (`PUT /v1/web-push/subscriptions/{id}`)
/// that have not ended. Each holds a helper thread for as long as DNS takes to answer, so
/// their number is bounded, for the server and for each account, so that one account cannot
/// make threads without end (names served slowly on purpose) nor take every place. A place is
/// freed when the lookup ends, not when the request does: the thread lives until then.
final class PushHostLookups {
    private var total = 0
    private var byAccount: [String: Int] = [:]

    /// Lookups in flight now (tests).
    var count: Int { total }

    /// Takes a place for `accountID`, or throws the refusal: `429` past the account's
    /// `Limits.pushLookupsPerAccount`, `503` past the server's `Limits.pushLookupsInFlight`.
    func admit(_ accountID: String) throws(APIError) {
        let own = byAccount[accountID, default: 0]
        if own >= Limits.pushLookupsPerAccount { throw Limits.pushLookupsPerAccountRefusal }
        if total >= Limits.pushLookupsInFlight { throw Limits.pushLookupsFullRefusal }
        byAccount[accountID] = own + 1
        total += 1
    }

    /// The lookup `admit` made room for ended.
    func release(_ accountID: String) {
        total -= 1
        let own = byAccount[accountID, default: 1] - 1
        byAccount[accountID] = own > 0 ? own : nil
    }
}
