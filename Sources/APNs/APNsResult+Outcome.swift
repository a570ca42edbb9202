/// What `/metrics` calls the end of one push (`relaydeck_pushes_total{outcome}`): a bounded
/// set of words, whatever APNs answers, so a reason APNs makes up later, or a body that is
/// not APNs's, adds no series.
extension APNsResult {
    /// The `reason` values APNs documents for an error answer ("Handling notification
    /// responses from APNs"), by status: 400, 403, 404, 405, 410, 413, 429, 500, 503.
    public static let documentedReasons = [
        "BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
        "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
        "MissingTopic", "PayloadEmpty", "TopicDisallowed",
        "BadCertificate", "BadCertificateEnvironment", "ExpiredProviderToken", "Forbidden", "InvalidProviderToken",
        "MissingProviderToken", "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken",
        "BadPath", "MethodNotAllowed", "ExpiredToken", "Unregistered", "PayloadTooLarge",
        "TooManyProviderTokenUpdates", "TooManyRequests", "InternalServerError", "ServiceUnavailable", "Shutdown",
    ]

    /// Every outcome word, in the order `/metrics` writes them: `sent`, the documented
    /// reasons, `other` (a refusal with a reason not documented, or with none), and
    /// `unreachable` (no answer: no connection, or it broke, until the retries ran out).
    public static let outcomes = ["sent"] + documentedReasons + ["other", "unreachable"]

    private static let documented = Set(documentedReasons)

    /// This result's outcome word, one of `outcomes`.
    public var outcome: String {
        switch self {
        case .delivered: "sent"
        case .refused(_, let reason?) where Self.documented.contains(reason): reason
        case .refused: "other"
        case .unreachable: "unreachable"
        }
    }
}
