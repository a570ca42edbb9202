import Relaydeck

/// Why a call may not park: its key, or its account's own credentials, already hold as many
/// waiting calls as the catalogue allows (`Limits.waitingCallsPerKey`, `...PerAccount`).
/// `Wakeups.admission` is the one decision; REST answers `error`, an MCP tool `toolError`.
enum WaitRefusal: Equatable {
    case keyFull
    case accountFull

    /// The number the refusal is about.
    var limit: Int {
        switch self {
        case .keyFull: Limits.waitingCallsPerKey
        case .accountFull: Limits.waitingCallsPerAccount
        }
    }

    /// REST (`rest-api.md#wait-for-the-answer`): `429 rate_limited`, `Retry-After: 1`.
    var error: APIError { .rateLimited(retryAfter: 1) }

    /// An MCP tool's error: what to do instead, with the number (a tool call is a key's).
    var toolError: APIError {
        var error = APIError(429, "rate_limited",
                             "A key can have \(limit) calls that wait at the same time. Call again with wait_seconds 0, or in 1 second.")
        error.headers = [("Retry-After", "1")]
        return error
    }
}

extension Wakeups {
    /// Whether `principal` may park one more call: nil, or why not. The one rule for REST and
    /// MCP, counted over both: a key's calls against its own budget, an account token's and
    /// web sessions' against the account's. A call without a credential is not counted.
    func admission(for principal: Principal?) -> WaitRefusal? {
        switch principal {
        case .key(let use)?: count(of: use.keyID) < Limits.waitingCallsPerKey ? nil : .keyFull
        case .account(let accountID)?: count(ofAccount: accountID) < Limits.waitingCallsPerAccount ? nil : .accountFull
        case nil: nil
        }
    }
}
