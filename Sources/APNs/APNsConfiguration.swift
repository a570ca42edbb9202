import Clock
import Crypto

/// What the APNs client needs: the provider key and its IDs, where the two services are,
/// which CAs to trust, and its timing. The daemon builds it from the `APNS_*` variables
/// (`Config.APNs` holds the same fields under the same names).
public struct APNsConfiguration: Sendable {
    /// `APNS_TEAM_ID`: the `iss` of the provider token. 10 of [A-Z0-9].
    public var teamID: String
    /// `APNS_KEY_ID`: the `kid` of the provider token. 10 of [A-Z0-9].
    public var keyID: String
    /// The `.p8` file's PEM text (PKCS #8). Secret: never logged.
    public var privateKeyPEM: [UInt8]
    /// `APNS_PRODUCTION_URL`: `https://host[:port]` (or `http://` for HTTP/2 without TLS).
    public var productionURL: String
    /// `APNS_SANDBOX_URL`, same form.
    public var sandboxURL: String
    /// `APNS_CA_FILE`: a PEM file of CAs trusted besides the system's (a test mock's).
    public var caFile: String?

    /// How long one provider token is used: APNs takes 20 to 60 minutes.
    public var tokenLifetime: TimeSpan = .seconds(50 * 60)
    public var retry = APNsRetryPolicy()
    /// A connection with no request for this long sends a PING, to find out that it is
    /// still there (and to keep middleboxes from dropping it).
    public var idlePingInterval: TimeSpan = .seconds(60)
    /// A PING unanswered for this long closes the connection; the next push opens another.
    public var pingTimeout: TimeSpan = .seconds(10)
    /// From starting a connection (name lookup included) to its first SETTINGS.
    public var connectTimeout: TimeSpan = .seconds(10)
    /// From sending a request to its whole answer.
    public var requestTimeout: TimeSpan = .seconds(30)

    public static let defaultProductionURL = "https://api.push.apple.com"
    public static let defaultSandboxURL = "https://api.sandbox.push.apple.com"

    public init(
        teamID: String, keyID: String, privateKeyPEM: [UInt8],
        productionURL: String = defaultProductionURL, sandboxURL: String = defaultSandboxURL, caFile: String? = nil
    ) {
        self.teamID = teamID
        self.keyID = keyID
        self.privateKeyPEM = privateKeyPEM
        self.productionURL = productionURL
        self.sandboxURL = sandboxURL
        self.caFile = caFile
    }

    /// The provider key of the `.p8` file (PEM, PKCS #8), which must be on P-256; the
    /// refusal names the file's kind, never its bytes.
    static func providerKey(pem: [UInt8]) throws(APNsConfigurationError) -> P256.PrivateKey {
        do {
            return try P256.PrivateKey(pem: pem)
        } catch {
            throw APNsConfigurationError(error.message == "not a PEM private key"
                ? "the APNs private key is not a PEM private key (PKCS #8, as in the .p8 file)"
                : "the APNs private key is not an EC P-256 key")
        }
    }
}

/// A configuration the client cannot work with; the message names what, never a secret.
public struct APNsConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Which answers are tried again, how often, and how long to wait between tries: `429`,
/// `500`, `503` and a connection that could not be made or broke. The wait doubles from
/// `baseDelay` up to `maxDelay`, and a random part (half of it) spreads the retries of many
/// pushes apart ("equal jitter").
public struct APNsRetryPolicy: Sendable, Equatable {
    /// Tries in all, the first included.
    public var maxAttempts = 4
    public var baseDelay: TimeSpan = .seconds(1)
    public var maxDelay: TimeSpan = .seconds(30)

    public init(maxAttempts: Int = 4, baseDelay: TimeSpan = .seconds(1), maxDelay: TimeSpan = .seconds(30)) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    public static func isRetryable(status: Int) -> Bool {
        status == 429 || status == 500 || status == 503
    }

    /// The wait after try number `attempt` (1 for the first) failed; `random` in [0, 1).
    public func delay(after attempt: Int, random: Double) -> TimeSpan {
        let doublings = min(max(attempt - 1, 0), 30)
        let (scaled, overflow) = baseDelay.nanoseconds.multipliedReportingOverflow(by: Int64(1) << doublings)
        let full = overflow ? maxDelay.nanoseconds : min(maxDelay.nanoseconds, scaled)
        let half = full / 2
        return TimeSpan(nanoseconds: half + Int64(Double(full - half) * min(max(random, 0), 1)))
    }
}

/// Where one APNs service is: from `https://host[:port]`.
struct APNsEndpoint: Sendable, Equatable {
    var host: String
    var port: UInt16
    var usesTLS: Bool

    /// `:authority`: the host (bracketed if IPv6), and the port unless it is the scheme's.
    var authority: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (usesTLS ? 443 : 80) ? name : "\(name):\(port)"
    }

    init(host: String, port: UInt16, usesTLS: Bool) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
    }

    init(url: String) throws(APNsConfigurationError) {
        let rest: Substring
        if url.hasPrefix("https://") {
            usesTLS = true
            rest = url.dropFirst(8)
        } else if url.hasPrefix("http://") {
            usesTLS = false
            rest = url.dropFirst(7)
        } else {
            throw APNsConfigurationError("APNs URL \(String(reflecting: url)) is not https://host[:port]")
        }
        var hostPort = rest
        if hostPort.hasSuffix("/") { hostPort = hostPort.dropLast() }
        guard !hostPort.isEmpty, !hostPort.contains("/"), !hostPort.contains("@"), !hostPort.contains("?") else {
            throw APNsConfigurationError("APNs URL \(String(reflecting: url)) is not https://host[:port]")
        }
        var portText: Substring?
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else {
                throw APNsConfigurationError("APNs URL \(String(reflecting: url)) has an unclosed [")
            }
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw APNsConfigurationError("APNs URL \(String(reflecting: url)) is not https://host[:port]") }
                portText = after.dropFirst()
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = String(hostPort[..<colon])
            portText = hostPort[hostPort.index(after: colon)...]
        } else {
            host = String(hostPort)
        }
        if let portText {
            guard let number = UInt16(portText), number > 0 else {
                throw APNsConfigurationError("APNs URL \(String(reflecting: url)) has a bad port")
            }
            port = number
        } else {
            port = usesTLS ? 443 : 80
        }
        guard !host.isEmpty else { throw APNsConfigurationError("APNs URL \(String(reflecting: url)) has no host") }
    }
}
