import Clock
import HTTP
import JSON
import Relaydeck

extension AccountRoutes {
    /// `POST /v1/accounts`: closed creation first (`ACCOUNT_CREATION=closed`: the same `403`
    /// for everyone, before any check that costs work or tells anything), then the app code,
    /// the body, the address's limit and, with App Attest on, the attestation
    /// (`app-integrity.md#create-the-account`).
    func create(_ call: inout Call) async throws -> Outcome {
        guard context.configuration.accountCreationOpen else { throw APIError.accountCreationClosed }
        try Gate.checkAppCode(call.request, context: context)
        var body = call.bodyReader()
        let appAttestOn = context.configuration.appAttest != nil
        var attestation: AttestationInput?
        var challengeRedeemed = false
        if appAttestOn {
            let offered: String?
            (attestation, offered) = AttestationInput.read(from: &body)
            // `app-integrity.md#get-a-challenge`: an attempt that fails uses the challenge
            // too, also one refused for its shape or its rate, so it is taken before any check.
            if let offered {
                challengeRedeemed = try await context.challenges.use(Array(offered.utf8), owner: "", nowMillis: context.services.clock.wallMillis)
            }
        } else {
            // With the check off the server ignores the field, whatever it holds.
            body.ignore("attestation")
        }
        try body.check()
        try await takeCreation(call.request)
        let attestedKey = appAttestOn ? try attest(attestation, challengeRedeemed: challengeRedeemed) : nil
        let (account, token) = try await accounts.create(attestedKey: attestedKey)
        return Answers.created("account", account.write, secretKey: "token", token)
    }

    func get(_ account: AccountCaller) async throws -> Outcome {
        Self.answer(try await accounts.get(account.accountID))
    }

    /// `PATCH /v1/account`: `{"settings": {"live_activities": false}}`.
    func update(_ call: inout Call, _ account: AccountCaller) async throws -> Outcome {
        var body = call.bodyReader()
        var liveActivities: Bool?
        if var settings = body.object("settings") {
            liveActivities = settings.read("live_activities", .bool)
            body.merge(settings)
        }
        try body.check()
        return Self.answer(try await accounts.update(account.accountID, liveActivities: liveActivities))
    }

    func delete(_ account: AccountCaller) async throws -> Outcome {
        try await accounts.delete(account.accountID)
        context.onDeletion?()
        return Answers.noContent
    }

    /// Counts an account creation for the client's address.
    private func takeCreation(_ request: HTTPRequest) async throws(APIError) {
        try await creationLimiter.admit(context.client(of: request).text, now: context.nowMicros)
    }
}
