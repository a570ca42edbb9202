import HTTP
import JSON
import Relaydeck

/// The two discovery documents an OAuth client reads before anything else: the protected
/// resource's (RFC 9728: which authorization server guards `/mcp`) and the authorization
/// server's (RFC 8414: its endpoints and what it supports). Both are public, the same for
/// every client, and written from `PUBLIC_URL`; each lists only what this server does.
enum OAuthMetadata {
    static let protectedResourcePath = "/.well-known/oauth-protected-resource"
    static let authorizationServerPath = "/.well-known/oauth-authorization-server"

    static func protectedResourceURL(_ issuer: String) -> String { issuer + protectedResourcePath }

    /// RFC 9728 2.
    static func protectedResource(issuer: String, resource: String) -> HTTPResponse {
        document { writer in
            writer.key("resource")
            writer.string(resource)
            writer.key("authorization_servers")
            strings([issuer], &writer)
            writer.key("scopes_supported")
            strings(ScopeSet.all.names, &writer)
            writer.key("bearer_methods_supported")
            strings(["header"], &writer)
            writer.key("resource_name")
            writer.string("Relaydeck")
        }
    }

    /// RFC 8414 2. No OpenID Connect document (`openid-configuration`): this server issues no
    /// ID tokens, and the MCP specification asks a server for one of the two only.
    static func authorizationServer(issuer: String) -> HTTPResponse {
        document { writer in
            writer.key("issuer")
            writer.string(issuer)
            writer.key("authorization_endpoint")
            writer.string(issuer + "/oauth/authorize")
            writer.key("token_endpoint")
            writer.string(issuer + "/oauth/token")
            writer.key("registration_endpoint")
            writer.string(issuer + "/oauth/register")
            writer.key("revocation_endpoint")
            writer.string(issuer + "/oauth/revoke")
            writer.key("scopes_supported")
            strings(ScopeSet.all.names, &writer)
            writer.key("response_types_supported")
            strings(["code"], &writer)
            writer.key("grant_types_supported")
            strings(["authorization_code", "refresh_token"], &writer)
            writer.key("token_endpoint_auth_methods_supported")
            strings(OAuthClient.AuthMethod.allCases.map(\.rawValue), &writer)
            writer.key("revocation_endpoint_auth_methods_supported")
            strings(OAuthClient.AuthMethod.allCases.map(\.rawValue), &writer)
            writer.key("code_challenge_methods_supported")
            strings(["S256"], &writer)
            // The draft's: an https URL as client_id names the client's own metadata document.
            writer.key("client_id_metadata_document_supported")
            writer.bool(true)
            // RFC 9207: the redirect back carries `iss`, against mix-up attacks.
            writer.key("authorization_response_iss_parameter_supported")
            writer.bool(true)
        }
    }

    /// Public and the same for everyone: a browser-based client on another origin may read it
    /// (no credential rides along), and caches may keep it for a while.
    private static func document(_ write: (inout JSONWriter) -> Void) -> HTTPResponse {
        var writer = JSONWriter(capacity: 1024)
        writer.beginObject()
        write(&writer)
        writer.endObject()
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "public, max-age=300"),
                                                   ("Access-Control-Allow-Origin", "*")], body: writer.bytes)
    }

    private static func strings(_ values: [String], _ writer: inout JSONWriter) {
        writer.beginArray()
        for value in values { writer.string(value) }
        writer.endArray()
    }
}
