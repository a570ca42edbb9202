import EventLoop
import HTTP
import Relaydeck

/// The one catalogue of the limits the contract and the README state (`overview.md#rate-limits`,
/// `overview.md#limits`), each with its number and the refusal it causes; a refusal's message
/// is written from the number, never from a second literal. It lives in `API`, the lowest
/// target that knows both the numbers and the refusals (status and `code` are `APIError`s):
/// the domain's count limits stay constants of their services, which refuse with a
/// `DomainError` written from the same constant (the domain cannot import `API`), and this
/// catalogue names them; so are the HTTP layer's, its configuration's defaults (`server`).
/// A setting of the environment replaces a default here where the README says so, nowhere
/// else: `RATE_LIMIT_*`, `MAX_CONNECTIONS`, `ACCOUNT_STORAGE_LIMIT`.
public enum Limits {
    /// "So many per period" for each key of a `RateLimiter`; the case is also the limit's
    /// label under `relaydeck_rate_limit_refusals_total`.
    public enum Rate: Int, CaseIterable, Sendable {
        case requests, accounts, challenges, messages, notify, webSignIn, webChallenges, webPushTests, oauthRegistrations

        /// The `/metrics` label.
        public var name: String {
            switch self {
            case .requests: "requests"
            case .accounts: "accounts"
            case .challenges: "challenges"
            case .messages: "messages"
            case .notify: "notify_user"
            case .webSignIn: "web_sign_in"
            case .webChallenges: "web_challenges"
            case .webPushTests: "web_push_tests"
            case .oauthRegistrations: "oauth_registrations"
            }
        }

        /// How many in one `period`, unless a setting says otherwise (`setting`).
        public var count: Int {
            switch self {
            case .requests: 600
            case .accounts, .challenges: 20
            case .messages: 60
            case .notify: 30
            // The web console's own: sign-in attempts (a link, a token, a passkey) and
            // passkey challenges for each client address. The challenges wait in memory
            // for 5 minutes, so one address must not fill the book for everyone.
            case .webSignIn: 20
            case .webChallenges: 60
            // Test notifications (`POST /v1/web-push/subscriptions/{id}/test`) of an account.
            case .webPushTests: 5
            // RFC 7591 registrations from one client address (issue 24): each is a row, kept
            // until 30 days unused, so one address must not fill the table.
            case .oauthRegistrations: 20
            }
        }

        public var period: Period {
            switch self {
            case .requests, .webSignIn, .webChallenges, .webPushTests: .minute
            case .accounts, .challenges, .messages, .notify, .oauthRegistrations: .hour
            }
        }

        /// The setting of the environment that replaces `count`, if any.
        public var setting: String? {
            switch self {
            case .requests: "RATE_LIMIT_REQUESTS_PER_MINUTE"
            case .accounts: "RATE_LIMIT_ACCOUNTS_PER_HOUR"
            case .challenges: "RATE_LIMIT_CHALLENGES_PER_HOUR"
            case .messages, .notify, .webSignIn, .webChallenges, .webPushTests, .oauthRegistrations: nil
            }
        }

        /// The count in force: the operator's where `setting` exists, else the catalogue's.
        func count(in configuration: APIConfiguration) -> Int {
            switch self {
            case .requests: configuration.requestsPerMinute
            case .accounts: configuration.accountsPerHour
            case .challenges: configuration.challengesPerHour
            case .messages, .notify, .webSignIn, .webChallenges, .webPushTests, .oauthRegistrations: count
            }
        }

        /// `429 rate_limited` with `Retry-After`. `notify_user` (a tool only) says its number,
        /// so a model knows why; the others keep the generic message.
        func refusal(retryAfter seconds: Int) -> APIError {
            switch self {
            case .notify:
                // A tool error, which has no headers to carry `Retry-After`.
                return APIError(429, "rate_limited",
                                "A key can call notify_user \(count) times in one \(period.word). Try again in \(seconds) seconds.")
            case .requests, .accounts, .challenges, .messages, .webSignIn, .webChallenges, .webPushTests, .oauthRegistrations:
                return .rateLimited(retryAfter: seconds)
            }
        }
    }

    public enum Period: Sendable {
        case minute, hour

        public var micros: Int64 {
            switch self {
            case .minute: 60_000_000
            case .hour: 3_600_000_000
            }
        }

        var word: String {
            switch self {
            case .minute: "minute"
            case .hour: "hour"
            }
        }
    }

    /// Calls that may wait at the same time (`overview.md#rate-limits`: 32 for each key on one
    /// server process, REST and MCP together); `WaitAdmission` is the one check.
    public static let waitingCallsPerKey = 32
    /// Calls of one account's own credentials (its token and web sessions) that may wait at
    /// the same time. A person has several devices and tabs where an agent is one process:
    /// four for each of the `eventStreamsPerAccount`.
    public static let waitingCallsPerAccount = 4 * eventStreamsPerAccount
    /// `events.md#reconnect`: the 17th stream of one account ends its oldest (no refusal).
    public static let eventStreamsPerAccount = 16
    /// `wait` and `wait_seconds` of every call that waits (inbox, question reads); outside it
    /// the field is `422 validation_failed`.
    public static let waitSeconds = 0...50

    /// The challenges kept until used (App Attest's and the passkeys', each its own book, in
    /// memory or, with PostgreSQL, in the database): each lives `challengeLifetimeMillis`; a
    /// book holds at most `challengesKept`, and one more while it is full of live ones is
    /// `challengesFull`. A rate limiter's table of addresses, full of recent ones, refuses a
    /// new address the same way.
    public static let challengeLifetimeMillis: Int64 = 300_000
    public static let challengesKept = 100_000
    /// `429 rate_limited` with `Retry-After: 60`: a full book frees as its oldest expire.
    static let challengesFull = APIError.rateLimited(retryAfter: tableFullRetryAfterSeconds)
    public static let tableFullRetryAfterSeconds = 60

    /// Name lookups of Web Push endpoints that may run at once (`PushHostLookups`): each holds a
    /// helper thread while DNS answers. One more for the account is `429` (`Retry-After: 1`),
    /// one more for the server `503` (`Retry-After: 1`).
    public static let pushLookupsPerAccount = 2
    public static let pushLookupsInFlight = 32
    static let pushLookupsPerAccountRefusal = APIError.rateLimited(retryAfter: 1)
    static let pushLookupsFullRefusal: APIError = {
        var error = APIError(503, "unavailable", "The server is looking up too many push services. Try again in 1 second.")
        error.headers = [("Retry-After", "1")]
        return error
    }()
    /// How long a `PUT` of a subscription waits for its name's lookup: past it, `503` with
    /// `Retry-After: 5` (`PUT` again; the subscription was not stored).
    public static let pushLookupTime = TimeSpan.seconds(10)
    static let pushLookupFailedRefusal: APIError = {
        var error = APIError(503, "unavailable", "The push service's host name could not be looked up now. Try again in 5 seconds.")
        error.headers = [("Retry-After", "5")]
        return error
    }()

    /// A list's `limit`: the sizes it takes (others are `422 validation_failed` on `limit`)
    /// and the size without one.
    public struct Page: Sendable {
        public let name: String
        public let sizes: ClosedRange<Int>
        public let defaultSize: Int
    }

    /// `GET /v1/inbox` and `check_inbox`.
    public static let inboxPage = Page(name: "inbox items", sizes: 1...50, defaultSize: 20)
    /// `GET /v1/tasks` (the domain's filter holds the numbers: it also cuts by bytes).
    public static let tasksPage = Page(name: "tasks", sizes: 1...TaskFilter.maxLimit, defaultSize: TaskFilter.defaultLimit)
    /// `list_tasks` (`mcp.md`): the REST list's sizes, 50 without a `limit`.
    public static let listTasksTool = Page(name: "tasks", sizes: tasksPage.sizes, defaultSize: 50)
    /// `wait_seconds` of `ask_user` and `get_answer` without one (`mcp.md`), within `waitSeconds`.
    public static let toolWaitSeconds = 30
    /// `GET /v1/keys/{key_id}/activity`.
    public static let activityPage = Page(name: "activity entries", sizes: ActivityLog.pageSizes, defaultSize: ActivityLog.defaultPageSize)

    /// The HTTP server's defaults (`HTTPServerConfiguration`, below `API`, holds them and
    /// answers them before routing): named here so the catalogue is whole. `maxConnections`
    /// (`MAX_CONNECTIONS` replaces it; one more is `503 unavailable`, `Retry-After: 1`).
    public static let server = HTTPServerConfiguration()
    /// Its bounds on one request: `413`, `414`, `431`, each `bad_request`.
    public static let requestBounds = server.parserLimits

    /// A count the domain keeps (`overview.md#limits`): its number, read from the service that
    /// checks it, and the refusal the service's `DomainError` becomes.
    public struct Count: Sendable {
        /// What is counted, as the README's table says it.
        public let name: String
        public let value: Int
        /// `409 conflict` with the domain's message; nil when one more is accepted and the
        /// oldest goes (closed tasks, unread items, activity entries).
        let refusal: APIError?
    }

    /// The text fields of `overview.md#limits` and their rules (the domain's `TextRule`: a
    /// length in characters and a byte bound); a text outside is `422 validation_failed` on
    /// the field, its message written from the rule (`TextProblem.message`).
    public static let texts: [(field: String, rule: TextRule)] = [
        ("task title", .taskTitle), ("task description", .taskDescription), ("task status_note", .statusNote),
        ("key label", .keyLabel), ("notify_user title", .notificationTitle), ("notify_user body", .notificationBody),
        ("question prompt", .questionPrompt), ("question option", .questionOption), ("typed answer", .typedAnswer),
        ("message text", .messageText),
    ]

    /// `ACCOUNT_STORAGE_LIMIT`'s default: UTF-8 bytes of text one account may keep; a write
    /// past it is `409 conflict` (`StorageQuota`, which the setting replaces).
    public static let accountStorageBytes = StorageQuota.defaultLimit

    /// The count limits of `overview.md#limits`, in its order.
    public static let counts: [Count] = [
        Count(name: "keys for each account", value: Keys.maxPerAccount, refusal: .from(Keys.fullError)),
        Count(name: "devices for each account", value: Devices.maxPerAccount, refusal: .from(Devices.fullError)),
        Count(name: "open tasks for each key", value: Tasks.maxOpenPerKey, refusal: .from(Tasks.openCapError)),
        Count(name: "closed tasks for each key", value: Tasks.maxClosedPerKey, refusal: nil),
        Count(name: "pending questions for each key", value: Questions.maxPendingPerKey, refusal: .from(Questions.fullError)),
        Count(name: "unread inbox items for each key", value: Inbox.maxUnreadPerKey, refusal: nil),
        Count(name: "activity log entries for each key", value: ActivityLog.keptPerKey, refusal: nil),
        Count(name: "connector grants for each key", value: OAuthGrants.maxPerKey, refusal: .from(OAuthGrants.fullError)),
        Count(name: "redirect URIs for each OAuth client", value: OAuthClients.maxRedirectURIs, refusal: nil),
    ]
}
