/// The App Attest environment a server accepts (`app-integrity.md#what-the-server-validates`,
/// step 6), and the `aaguid` that names it in the authenticator data.
public enum AppAttestEnvironment: String, Sendable, CaseIterable {
    case production
    case development

    /// "appattest" and seven zero bytes, or "appattestdevelop": 16 bytes each.
    public var aaguid: [UInt8] {
        switch self {
        case .production: Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
        case .development: Array("appattestdevelop".utf8)
        }
    }
}
