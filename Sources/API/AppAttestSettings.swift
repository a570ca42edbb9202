import AppIntegrity

/// What App Attest needs from the operator (`app-integrity.md#app-attest`): the app IDs, the
/// one environment the server accepts, and the root certificate (Apple's unless a test
/// replaces it with `APP_ATTEST_ROOT_CA_FILE`).
public struct AppAttestSettings: Sendable {
    /// `TEAMID.bundle.identifier`, one or more.
    public var appIDs: [String]
    public var environment: AppAttestEnvironment
    /// A PEM certificate; nil is Apple's App Attestation Root CA, pinned in the binary.
    public var rootPEM: String?

    public init(appIDs: [String], environment: AppAttestEnvironment, rootPEM: String? = nil) {
        self.appIDs = appIDs
        self.environment = environment
        self.rootPEM = rootPEM
    }

    /// The verifier for these settings; nil when the root PEM holds no certificate, which the
    /// daemon checks at start.
    public func makeVerifier() -> AppAttestVerifier? {
        AppAttestVerifier(appIDs: appIDs, environment: environment, rootPEM: rootPEM ?? AppleAppAttestationRoot.pem)
    }
}
