#if canImport(Glibc)
import Glibc
#endif
import API
import EventLoop
import HTTP
import Logging
import Postgres
import PostgresStore
import Relaydeck
import SQLite
import TLS

/// Serves: the wiring of configuration, store, API, HTTP server, signals and systemd.
final class Daemon {
    private let config: Config
    private let environment: [String: String]
    private let loop: EventLoop
    /// The store the services use: SQLite's (`sqlite`) or PostgreSQL's (`postgres`).
    private let store: any SessionStore
    private let sqlite: Store?
    /// With `DATABASE_URL`: connected in `run`, after the schema's migration.
    private let postgres: PostgresWiring?
    private let server: HTTPServer
    private let api: APIHandler
    private let webPush: WebPushSubscriptions
    /// Where committed changes are announced (the other nodes' too, with PostgreSQL).
    private let hub: EventHub
    /// `METRICS_LISTEN`'s server; nil while off.
    private let metricsServer: HTTPServer?
    private let maintenance: Maintenance
    private let notifier: SystemdNotifier?
    /// Nil while push is off.
    private let pushes: PushWiring?
    private let webPushes: WebPushWiring
    /// HTTPS (`TLS_CERT_FILE`, `TLS_KEY_FILE`); nil serves plain HTTP.
    private var tls: TLSTransportFactory?
    private var addresses: [String] = []
    private var stopping = false

    init(config: Config, environment: [String: String]) throws {
        self.config = config
        self.environment = environment
        loop = try EventLoop()
        let quota = StorageQuota(limit: config.accountStorageLimit)
        if let settings = config.databaseURL {
            let wiring = try PostgresWiring(settings: settings, connections: config.databaseConnections, quota: quota, loop: loop)
            // Before anything else is made: a database that cannot be reached or migrated is
            // a failed start, said in one line.
            try wiring.prepare()
            postgres = wiring
            sqlite = nil
            store = wiring.store
        } else {
            var options = Database.Options()
            options.synchronous = config.durability.synchronous
            // The loop never sleeps in SQLite's busy handler: a write lock held by another
            // process parks the request and retries on a timer (API's write lock).
            options.busyTimeoutMillis = 0
            let sqlite = Store(path: config.databasePath, options: options)
            // The reads of one loop turn share one read transaction (see `Store.endOfTurn`).
            sqlite.endOfTurn = { [loop] work in loop.atEndOfTurn(.endRead, work) }
            // WAL checkpoints (page copies and fsyncs) off the loop thread.
            sqlite.checkpointInBackground()
            sqlite.quota = quota
            self.sqlite = sqlite
            postgres = nil
            store = sqlite
        }
        let services = Services(store: store, clock: SystemClock.shared, random: SystemRandom())
        webPush = services.webPush
        hub = services.hub
        var apiConfiguration = APIConfiguration()
        apiConfiguration.requestsPerMinute = config.rateLimitRequestsPerMinute
        apiConfiguration.accountsPerHour = config.rateLimitAccountsPerHour
        apiConfiguration.accountCreationOpen = config.accountCreationOpen
        apiConfiguration.trustedProxies = config.trustedProxies
        apiConfiguration.appCodeSecret = config.appTOTPSecret
        apiConfiguration.challengesPerHour = config.rateLimitChallengesPerHour
        apiConfiguration.appAttest = try config.appAttestSettings()
        apiConfiguration.publicOrigin = config.publicURL
        apiConfiguration.serverVersion = Version.current
        pushes = try PushWiring.install(config.apns, lease: Int64(config.pushLeaseMillis), services: services, loop: loop)
        webPushes = try WebPushWiring.install(config, services: services, loop: loop)
        apiConfiguration.pushEnabled = config.apns != nil
        apiConfiguration.servesHTTPS = config.tlsCertFile != nil
        apiConfiguration.metricsToken = config.metricsToken
        apiConfiguration.webPushAllowsPrivateHosts = config.webPushAllowPrivateHosts
        api = APIHandler(services: services, configuration: apiConfiguration, loop: loop)
        // OAuth's client metadata documents: one TLS context for their fetches, made at start.
        api.installClientDocuments(tls: try TLSClientContext(extraCAFile: config.oauthCAFile),
                                   allowsPrivateHosts: config.oauthAllowPrivateHosts)
        var http = HTTPServerConfiguration()
        http.maxConnections = config.maxConnections
        http.headerTimeout = .milliseconds(config.headerTimeoutMillis)
        http.bodyTimeout = .milliseconds(config.headerTimeoutMillis)
        http.idleTimeout = .milliseconds(config.idleTimeoutMillis)
        server = HTTPServer(loop: loop, configuration: http, handler: api)
        api.openConnections = { [unowned server] in server.connectionCount }
        metricsServer = config.metricsListen == nil ? nil : HTTPServer(loop: loop, configuration: http, handler: api.metricsListener())
        if let certificate = config.tlsCertFile, let key = config.tlsKeyFile {
            tls = try TLSTransportFactory(certificateFile: certificate, keyFile: key)
            server.transportFactory = tls
        }
        maintenance = Maintenance(loop: loop, purger: Purger(store: store),
                                  retention: Retention(store: store, clock: SystemClock.shared, hub: services.hub))
        notifier = SystemdNotifier(environment: environment)
    }

    /// Runs until SIGTERM or SIGINT; returns the exit status.
    func run() -> Int32 {
        do {
            try loop.handleSignals([SIGTERM, SIGINT, SIGHUP]) { [unowned self] signal in self.signalled(signal) }
        } catch {
            Log.error("could not handle signals", ["error": error.description])
            return 1
        }
        if let sqlite {
            do {
                try sqlite.open()
            } catch {
                // Not a passing condition: this binary cannot use a newer schema.
                printError("DATABASE_PATH: \(error.description)")
                return 1
            }
        }
        // Who may make an account, and how much each may keep: what an operator checks first
        // on a server that others can reach.
        Log.info("accounts", ["creation": config.accountCreationOpen ? "open" : "closed",
                              "storage_limit": ConfigSyntax.byteText(config.accountStorageLimit)])
        // OAuth binds every token to the server's name; without PUBLIC_URL it has none it can
        // trust (a `Host` header is the client's word), so connectors that only speak OAuth
        // cannot connect: say so once, where the operator looks.
        if config.publicURL == nil {
            Log.warn("OAuth is off: set PUBLIC_URL to let connectors that only speak OAuth connect; API keys work as before")
        }
        // The VAPID key is made at the first start, so that it is in the store (and its
        // backups) before any browser subscribes with it. A store that is away at the start
        // (the server serves 503 until it is back) gets it when it recovers, or at the first
        // `GET /v1/web-push/key`.
        makeVAPIDKey()
        api.onDeletion = { [unowned self] in self.maintenance.kick() }
        sqlite?.onRecovered = { [unowned self] in
            self.maintenance.kick()
            self.makeVAPIDKey()
        }
        postgres?.onRecovered = { [unowned self] in
            self.maintenance.kick()
            self.makeVAPIDKey()
        }
        postgres?.startFeed(hub: hub) { [unowned self] in self.api.endEventStreams() }
        maintenance.kick()
        maintenance.startRetention()
        // What a previous run left in the outbox goes now.
        pushes?.start()
        webPushes.start()
        do {
            try listen()
        } catch {
            printError(String(describing: error))
            return 1
        }
        let status = "Listening on \(addresses.joined(separator: ", "))"
        notifier?.notify("READY=1\nSTATUS=\(status)")
        startWatchdog()
        loop.run()
        Log.info("stopped")
        return 0
    }

    private struct ListenFailure: Error, CustomStringConvertible {
        let description: String
    }

    private func listen() throws {
        let inherited: [Int32]
        do {
            inherited = try SocketActivation.descriptors(environment: environment)
        } catch {
            throw ListenFailure(description: error.description)
        }
        if !inherited.isEmpty {
            for fd in inherited {
                try server.listen(on: fd)
                announce(Socket.localPort(fd).map { "port \($0) (socket \(fd) from systemd)" } ?? "socket \(fd) from systemd")
            }
        } else {
            announce(try Self.listen(server, on: config.listen, variable: "LISTEN"))
        }
        if let metricsServer, let address = config.metricsListen {
            // Its own message, so that what reads the log for the main address never takes it.
            let bound = try Self.listen(metricsServer, on: address, variable: "METRICS_LISTEN")
            Log.info("serving metrics", ["address": bound])
        }
    }

    /// Binds `address` for `server`; the address as bound (with port 0 the kernel picked the
    /// port: say which).
    private static func listen(_ server: HTTPServer, on address: Config.ListenAddress, variable: String) throws -> String {
        let fd: Int32
        do {
            switch address {
            case .tcp(let host, let port):
                fd = try Socket.listenTCP(address: host.bytes, port: port)
            case .unix(let path):
                fd = try Socket.listenUnix(path: path)
            }
        } catch {
            throw ListenFailure(description: "\(variable): cannot listen on \(Self.text(of: address)): \(error.description)")
        }
        try server.listen(on: fd)
        var bound = address
        if case .tcp(let host, _) = bound, let port = Socket.localPort(fd) { bound = .tcp(host: host, port: port) }
        return Self.text(of: bound)
    }

    /// Logs (and keeps, for the systemd status) where a listener listens.
    private func announce(_ address: String) {
        addresses.append(address)
        Log.info("listening", ["address": address])
    }

    static func text(of listen: Config.ListenAddress) -> String {
        switch listen {
        case .tcp(let host, let port): host.family == .v6 ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }

    /// Reads (or makes and stores) the VAPID key, on a task (with SQLite it has ended when
    /// `startTask` returns); a store that cannot is said in the log.
    private func makeVAPIDKey() {
        loop.startTask { [webPush] in
            do {
                _ = try await webPush.vapidKey()
            } catch {
                Log.warn("the Web Push key could not be read or stored yet", ["error": String(describing: error)])
            }
        }
    }

    private func startWatchdog() {
        guard let notifier, let text = environment["WATCHDOG_USEC"], let usec = Int64(text), usec > 0 else { return }
        if let pid = environment["WATCHDOG_PID"], Int32(pid) != getpid() { return }
        let interval = TimeSpan(nanoseconds: usec * 1000 / 2)
        var ping: (() -> Void)!
        ping = { [unowned self] in
            notifier.notify("WATCHDOG=1")
            if !self.stopping { self.loop.schedule(after: interval, ping) }
        }
        loop.schedule(after: interval, ping)
    }

    private func signalled(_ signal: Int32) {
        switch signal {
        case SIGHUP:
            reloadCertificate()
        default:
            stop()
        }
    }

    /// `SIGHUP`: the TLS certificate and key are read again (a renewed certificate) for the
    /// connections that come next; open connections keep their sessions. A file that cannot be
    /// used keeps the old certificate. The other settings are read at start only.
    private func reloadCertificate() {
        guard let tls else {
            Log.info("SIGHUP ignored: no TLS certificate to reload, and the other settings are read at start only")
            return
        }
        do {
            try tls.reload()
            Log.info("reloaded the TLS certificate", ["file": tls.certificateFile])
        } catch {
            Log.warn("could not reload the TLS certificate; serving the old one", ["error": error.message])
        }
    }

    /// The graceful stop: no new connections, requests in flight finish, parked requests and
    /// streams end, the WAL is checkpointed, then the loop ends.
    private func stop() {
        guard !stopping else { return }
        stopping = true
        Log.info("stopping")
        notifier?.notify("STOPPING=1\nSTATUS=Stopping")
        // A scrape in flight gets its answer; the metrics server holds up nothing else.
        metricsServer?.shutdown(timeout: .milliseconds(config.shutdownTimeoutMillis)) {}
        server.shutdown(timeout: .milliseconds(config.shutdownTimeoutMillis)) { [unowned self] in
            // Pushes not answered yet stay in the outbox for the next start, given back
            // before the store closes (with PostgreSQL that awaits the database).
            self.loop.startTask { [self] in
                await pushes?.stop()
                await webPushes.stop()
                await api.flushedActivity()
                sqlite?.close()
                postgres?.stop()
                loop.stop()
            }
        }
    }
}

/// One line on stderr; under the journal at priority err (`<3>`), so `journalctl -p err`
/// shows why a start failed.
func printError(_ line: String) {
    let journal = JournalStream.isStandardError(getenv("JOURNAL_STREAM").map { String(cString: $0) })
    let text = (journal ? "<3>" : "") + "relaydeckd: \(line)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
}
