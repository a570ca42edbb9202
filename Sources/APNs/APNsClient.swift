import EventLoop
import JSON
import Logging
import TLS

/// The APNs client (`APNsSending`): one HTTP/2 connection per service (production,
/// sandbox), opened on the first push and kept; the provider token; the retries. Loop
/// thread only.
///
/// How a push ends:
/// - `200`: `.delivered`.
/// - `403 ExpiredProviderToken`: the token is renewed and the push sent again at once
///   (twice at most).
/// - `429`, `500`, `503`, or no connection (it could not be made, broke, or the answer
///   took too long): tried again after a growing, jittered wait, up to
///   `APNsRetryPolicy.maxAttempts` tries in all; then `.refused` with the last status, or
///   `.unreachable`.
/// - A push the server never processed (GOAWAY above its stream, REFUSED_STREAM) goes
///   again at once on a new connection without counting as a try (ten times at most).
/// - Any other status: `.refused(status, reason)` at once.
///
/// Log lines carry the status, APNs' reason and the service, never the device token, the
/// provider token or the key.
public final class APNsClient: APNsSending {
    private let loop: EventLoop
    private let configuration: APNsConfiguration
    private let endpoints: [APNsEnvironment: APNsEndpoint]
    private let tlsContext: TLSClientContext?
    private let providerToken: ProviderToken
    private let random: () -> Double
    private var connections: [APNsEnvironment: APNsConnection] = [:]
    private var retryTimers: [ObjectIdentifier: (LoopTimer, APNsAttempt)] = [:]
    private var closed = false

    /// How many times a push is sent again without counting as a try before it is given up.
    static let maxRequeues = 10
    static let maxRenewals = 2

    /// Fails when the key is not an EC P-256 PEM key, an ID is not 10 of [A-Z0-9], a URL is
    /// not `https://host[:port]`, or the CA file cannot be loaded. `random` gives the jitter
    /// of retry waits (values in [0, 1)).
    public init(
        configuration: APNsConfiguration, loop: EventLoop, random: @escaping () -> Double = { Double.random(in: 0..<1) }
    ) throws(APNsConfigurationError) {
        for (name, value) in [("team ID", configuration.teamID), ("key ID", configuration.keyID)] {
            guard value.utf8.count == 10, value.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) }) else {
                throw APNsConfigurationError("the APNs \(name) is not 10 of A-Z and 0-9")
            }
        }
        let minutes = configuration.tokenLifetime.nanoseconds / 60_000_000_000
        guard minutes >= 20, configuration.tokenLifetime <= .seconds(3600) else {
            throw APNsConfigurationError("the provider token lifetime must be 20 to 60 minutes")
        }
        self.configuration = configuration
        self.loop = loop
        self.random = random
        let production = try APNsEndpoint(url: configuration.productionURL)
        let sandbox = try APNsEndpoint(url: configuration.sandboxURL)
        endpoints = [.production: production, .sandbox: sandbox]
        if production.usesTLS || sandbox.usesTLS {
            do {
                tlsContext = try TLSClientContext(alpn: ["h2"], extraCAFile: configuration.caFile)
            } catch {
                throw APNsConfigurationError("APNs TLS: \(error.message)")
            }
        } else {
            tlsContext = nil
        }
        let signer = try APNsConfiguration.providerKey(pem: configuration.privateKeyPEM)
        providerToken = ProviderToken(
            signer: signer, teamID: configuration.teamID, keyID: configuration.keyID, clock: loop.clock,
            lifetime: configuration.tokenLifetime)
    }

    public func send(_ request: APNsRequest, completion: @escaping (APNsResult) -> Void) {
        let attempt = APNsAttempt(request: request, completion: completion)
        // Results known at once still arrive after `send` returns, like every other.
        if closed {
            loop.runSoon { [self] in finish(attempt, .unreachable("the APNs client is shut down")) }
            return
        }
        if let problem = APNsHeaders.problem(in: request) {
            // What APNs itself would answer; it never leaves the process.
            loop.runSoon { [self] in finish(attempt, .refused(status: 400, reason: problem)) }
            return
        }
        dispatch(attempt)
    }

    /// Closes the connections; pushes still in flight or waiting for a retry end as
    /// `.unreachable`.
    public func shutdown() {
        closed = true
        for (timer, attempt) in retryTimers.values {
            loop.cancel(timer)
            finish(attempt, .unreachable("the APNs client is shut down"))
        }
        retryTimers.removeAll()
        for connection in connections.values { connection.shutdown() }
        connections.removeAll()
    }

    /// The open connection of `environment`, if any (for tests).
    func connection(for environment: APNsEnvironment) -> APNsConnection? {
        connections[environment].flatMap { $0.isUsable ? $0 : nil }
    }

    // MARK: Sending and retrying

    private func dispatch(_ attempt: APNsAttempt) {
        let environment = attempt.request.environment
        let connection: APNsConnection
        if let current = connections[environment], current.isUsable {
            connection = current
        } else {
            connection = APNsConnection(
                loop: loop, endpoint: endpoints[environment]!, tlsContext: endpoints[environment]!.usesTLS ? tlsContext : nil,
                configuration: configuration, providerToken: { [providerToken] in providerToken.token() },
                report: { [weak self] attempt, outcome in self?.handle(attempt, outcome) })
            connections[environment] = connection
        }
        attempt.tries += 1
        connection.enqueue(attempt)
    }

    private func handle(_ attempt: APNsAttempt, _ outcome: APNsOutcome) {
        if closed {
            finish(attempt, .unreachable("the APNs client is shut down"))
            return
        }
        switch outcome {
        case .response(200, _):
            finish(attempt, .delivered)
        case .response(let status, let body):
            let reason = Self.reason(in: body)
            if status == 403 && reason == "ExpiredProviderToken" && attempt.renewals < Self.maxRenewals {
                attempt.renewals += 1
                if let used = attempt.providerToken { providerToken.expire(used) }
                Log.info("APNs provider token expired; renewing it", ["environment": attempt.request.environment.rawValue])
                attempt.tries -= 1
                dispatch(attempt)
            } else if APNsRetryPolicy.isRetryable(status: status) && attempt.tries < configuration.retry.maxAttempts {
                retryLater(attempt, because: "status \(status)" + (reason.map { " \($0)" } ?? ""))
            } else {
                finish(attempt, .refused(status: status, reason: reason))
            }
        case .notProcessed:
            attempt.tries -= 1
            attempt.requeues += 1
            if attempt.requeues > Self.maxRequeues {
                finish(attempt, .unreachable("APNs did not process the push after \(Self.maxRequeues) new connections"))
            } else {
                dispatch(attempt)
            }
        case .failed(let reason):
            if attempt.tries < configuration.retry.maxAttempts {
                retryLater(attempt, because: reason)
            } else {
                finish(attempt, .unreachable(reason))
            }
        }
    }

    private func retryLater(_ attempt: APNsAttempt, because reason: String) {
        let wait = configuration.retry.delay(after: attempt.tries, random: random())
        Log.info("APNs push will be tried again", [
            "environment": attempt.request.environment.rawValue, "reason": reason,
            "try": String(attempt.tries), "wait_ms": String(wait.milliseconds),
        ])
        let key = ObjectIdentifier(attempt)
        let timer = loop.schedule(after: wait) { [weak self] in
            guard let self, self.retryTimers.removeValue(forKey: key) != nil else { return }
            self.dispatch(attempt)
        }
        retryTimers[key] = (timer, attempt)
    }

    private func finish(_ attempt: APNsAttempt, _ result: APNsResult) {
        switch result {
        case .delivered:
            break
        case .refused(let status, let reason):
            Log.warn("APNs refused a push", [
                "environment": attempt.request.environment.rawValue, "status": String(status),
                "reason": reason ?? "(none)", "push_type": attempt.request.pushType,
            ])
        case .unreachable(let reason):
            Log.warn("APNs push not sent", [
                "environment": attempt.request.environment.rawValue, "reason": reason, "tries": String(attempt.tries),
            ])
        }
        attempt.completion(result)
    }

    /// The `reason` of an APNs error body (`{"reason":"BadDeviceToken"}`).
    static func reason(in body: [UInt8]) -> String? {
        guard !body.isEmpty, let value = try? JSONParser.parse(body) else { return nil }
        return value["reason"]?.stringValue
    }
}
