import JSON
import Relaydeck

/// A Client ID Metadata Document read and checked: its `client_id` must be the URL it was
/// fetched from (else anyone's document could speak for another URL), the client is public
/// (`token_endpoint_auth_method` absent or `none`: a document cannot hold a secret), and the
/// rest follows the rules of a registration (`ClientRegistration`).
struct ClientMetadataDocument {
    let name: CheckedText
    let redirectURIs: [String]

    init(_ body: [UInt8], url: String) throws(OAuthError) {
        guard let json = try? JSONParser.parse(body), json.objectValue != nil else {
            throw OAuthError(400, "invalid_client_metadata", "The document is not a JSON object.")
        }
        guard json["client_id"]?.stringValue == url else {
            throw OAuthError(400, "invalid_client_metadata", "The document's client_id is not the URL it was fetched from.")
        }
        if let method = json["token_endpoint_auth_method"], method.stringValue != "none" {
            throw OAuthError(400, "invalid_client_metadata", "A metadata document's client must be public (token_endpoint_auth_method none).")
        }
        let registration = try ClientRegistration(body)
        name = registration.name
        redirectURIs = registration.redirectURIs
    }

    /// Whether `text` is a client ID that names a document: an `https:` URL with a path
    /// (the draft: "MUST contain a path component"), no fragment, no userinfo, bounded.
    static func isDocumentURL(_ text: String) -> Bool {
        guard text.hasPrefix("https://"), text.utf8.count <= RedirectURI.maxBytes, !text.contains("#"),
              text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return false }
        let rest = text.dropFirst("https://".count)
        guard let slash = rest.firstIndex(of: "/"), !rest[..<slash].contains("@"), !rest[..<slash].isEmpty else { return false }
        return rest[rest.index(after: slash)...].contains { $0 != "/" }
    }
}
