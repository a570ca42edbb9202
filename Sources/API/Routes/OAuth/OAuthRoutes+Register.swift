import HTTP
import JSON
import Relaydeck

extension OAuthRoutes {
    /// RFC 7591 3: open registration, as the MCP specification expects of a server that takes
    /// clients it has never seen. Bounded per client address (`Limits.Rate.oauthRegistrations`);
    /// a registration nothing uses is removed after 30 days (`Retention`).
    func register(_ request: HTTPRequest) async throws -> HTTPResponse {
        let type = request.head.header("content-type")?.split(separator: ";").first?.trimmingCharacters(in: " \t").lowercased()
        guard type == "application/json" else {
            throw OAuthError(400, "invalid_client_metadata", "The body must be application/json.")
        }
        try await registrations.admit(context.client(of: request).text, now: context.nowMicros)
        let registration = try ClientRegistration(request.body)
        let (client, secret) = try await context.services.oauthClients.register(
            name: registration.name, redirectURIs: registration.redirectURIs, authMethod: registration.authMethod)
        return Self.registered(client, secret: secret)
    }

    /// RFC 7591 3.2.1: the client's metadata as kept, with its ID and, for a confidential
    /// client, its secret (this one time; it never expires).
    static func registered(_ client: OAuthClient, secret: Secret?) -> HTTPResponse {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        writer.key("client_id")
        writer.string(client.id)
        writer.key("client_id_issued_at")
        writer.int(client.createdAt / 1000)
        if let secret {
            writer.key("client_secret")
            writer.string(secret.text)
            writer.key("client_secret_expires_at")
            writer.int(0)
        }
        writer.key("client_name")
        writer.string(client.name)
        writer.key("redirect_uris")
        writer.beginArray()
        for uri in client.redirectURIs { writer.string(uri) }
        writer.endArray()
        writer.key("grant_types")
        writer.beginArray()
        writer.string("authorization_code")
        writer.string("refresh_token")
        writer.endArray()
        writer.key("response_types")
        writer.beginArray()
        writer.string("code")
        writer.endArray()
        writer.key("token_endpoint_auth_method")
        writer.string(client.authMethod.rawValue)
        writer.endObject()
        return HTTPResponse(status: 201, headers: OAuthAnswers.headers, body: writer.bytes)
    }
}
