import HTTP
import JSON
import Relaydeck

/// The connectors that act as a key (issue 24): the console lists a key's OAuth grants and
/// removes one. Not in the contract; the account's only.
extension KeyRoutes {
    /// `GET /v1/keys/{key_id}/grants`: newest first; another account's key `404`.
    func grants(_ call: Call, _ account: AccountCaller) async throws -> Outcome {
        let keyID = try call.path("key_id")
        _ = try await keys.get(accountID: account.accountID, keyID: keyID)
        let grants = try await context.services.oauthGrants.list(accountID: account.accountID, keyID: keyID)
        return Answers.list("grants", grants, bytesEach: 400) { grant, writer in grant.write(to: &writer) }
    }

    /// `DELETE /v1/keys/{key_id}/grants/{grant_id}`: its tokens stop at once, waiting calls
    /// included.
    func removeGrant(_ call: Call, _ account: AccountCaller) async throws -> Outcome {
        let keyID = try call.path("key_id")
        let grantID = try call.path("grant_id")
        guard try await context.services.oauthGrants.list(accountID: account.accountID, keyID: keyID).contains(where: { $0.id == grantID })
        else { throw DomainError.notFound("Grant not found.") }
        try await context.services.oauthGrants.delete(accountID: account.accountID, grantID: grantID)
        return Answers.noContent
    }
}

extension Grant {
    /// `{"id", "client_id", "client_name", "scopes", "created_at", "last_used_at"}`.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("client_id")
        writer.string(clientID)
        writer.key("client_name")
        writer.string(clientName)
        writer.key("scopes")
        writer.beginArray()
        for name in scopes.names { writer.string(name) }
        writer.endArray()
        writer.key("created_at")
        writer.timestamp(millis: createdAt)
        writer.key("last_used_at")
        if let lastUsedAt { writer.timestamp(millis: lastUsedAt) } else { writer.null() }
        writer.endObject()
    }
}
