import HTTP
import JSON
import Relaydeck

extension KeyRoutes {
    /// `GET /v1/keys`: newest first.
    func list(_ account: AccountCaller) async throws -> Outcome {
        Answers.list("keys", try await keys.list(accountID: account.accountID)) { $0.write(to: &$1) }
    }

    /// `POST /v1/keys`: `{"label": "Cursor (work)", "scopes": ["tasks:read"]}`; without
    /// `scopes`, every scope.
    func create(_ call: inout Call, _ account: AccountCaller) async throws -> Outcome {
        var body = call.bodyReader()
        body.require("label")
        let label = body.read("label", .text(.keyLabel))
        let scopes = body.scopes()
        try body.check()
        guard let label else { throw APIError.defect("a checked body lost its label") }
        let (key, secret) = try await keys.create(accountID: account.accountID, label: label, scopes: scopes ?? .all)
        return Answers.created("key", key.write, secretKey: "secret", secret)
    }

    /// `PATCH /v1/keys/{key_id}`: the fields are checked before the key is looked up, and
    /// written together.
    func update(_ call: inout Call, _ account: AccountCaller) async throws -> Outcome {
        var body = call.bodyReader()
        let label = body.read("label", .text(.keyLabel))
        let scopes = body.scopes()
        try body.check()
        let key = try await keys.update(accountID: account.accountID, keyID: try call.path("key_id"), label: label, scopes: scopes)
        return Answers.object(capacity: 400) { key.write(to: &$0) }
    }

    func delete(_ call: inout Call, _ account: AccountCaller) async throws -> Outcome {
        try await keys.delete(accountID: account.accountID, keyID: try call.path("key_id"))
        context.onDeletion?()
        return Answers.noContent
    }
}
