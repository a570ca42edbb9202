import HTTP
import JSON
import Relaydeck

/// The answers of the token endpoint (RFC 6749 5.1): JSON that no cache may keep.
enum OAuthAnswers {
    static let headers: [(name: String, value: String)] = [
        ("Content-Type", "application/json"), ("Cache-Control", "no-store"), ("Pragma", "no-cache"),
    ]

    static func tokens(_ issued: IssuedTokens) -> HTTPResponse {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("access_token")
        writer.string(issued.accessToken)
        writer.key("token_type")
        writer.string("Bearer")
        writer.key("expires_in")
        writer.int(issued.expiresIn)
        writer.key("refresh_token")
        writer.string(issued.refreshToken)
        writer.key("scope")
        writer.string(issued.scopes.words)
        writer.endObject()
        return HTTPResponse(status: 200, headers: headers, body: writer.bytes)
    }
}
