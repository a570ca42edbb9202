import APNs
import Testing

/// The outcome words of `/metrics`: bounded, whatever APNs answers.
@Suite struct APNsOutcomeTests {
    @Test func aDeliveredPushIsSentAndADocumentedReasonIsItself() {
        #expect(APNsResult.delivered.outcome == "sent")
        #expect(APNsResult.refused(status: 410, reason: "Unregistered").outcome == "Unregistered")
        #expect(APNsResult.refused(status: 400, reason: "BadDeviceToken").outcome == "BadDeviceToken")
        #expect(APNsResult.refused(status: 429, reason: "TooManyRequests").outcome == "TooManyRequests")
    }

    @Test func aReasonAPNsDoesNotDocumentOrNoReasonIsOtherAndNoAnswerIsUnreachable() {
        #expect(APNsResult.refused(status: 400, reason: "tsk_01jb2m9x4e7q").outcome == "other")
        #expect(APNsResult.refused(status: 400, reason: "BadHeaderValue").outcome == "other")
        #expect(APNsResult.refused(status: 500, reason: nil).outcome == "other")
        #expect(APNsResult.unreachable("connection refused").outcome == "unreachable")
    }

    @Test func everyOutcomeIsListedOnce() {
        #expect(Set(APNsResult.outcomes).count == APNsResult.outcomes.count)
        #expect(APNsResult.outcomes.first == "sent")
        #expect(APNsResult.outcomes.suffix(2) == ["other", "unreachable"])
        #expect(APNsResult.documentedReasons.count == 32)
    }
}
