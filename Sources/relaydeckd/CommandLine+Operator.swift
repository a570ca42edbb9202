#if canImport(Glibc)
import Glibc
#endif
import Clock
import Crypto
import EventLoop
import JSON
import Postgres
import PostgresStore
import Relaydeck
import SQLite

/// The operator's commands: they open the store at `DATABASE_PATH`, also while the server
/// runs on it (SQLite's locks keep them apart; a command waits up to the busy timeout for
/// the write lock), and print what they made as the API would answer it. A secret is shown
/// this one time, on standard output, and never logged.
extension CommandLine {
    static let accountUsage = """
        usage: relaydeckd account create
               relaydeckd account login-link --account ACCOUNT_ID

        create      Makes an account and prints {"account": ..., "token": "mca_...",
                    "login_link": "..."}; the token is shown this one time. This is
                    how accounts are made while ACCOUNT_CREATION=closed.
        login-link  Prints a link that signs a browser in to the web console of the
                    account: it works once, within 15 minutes, also on a server that runs
                    now. The link starts with PUBLIC_URL (else http:// and LISTEN).
        """
    static let accountCreateUsage = """
        usage: relaydeckd account create

        Makes an account and prints {"account": ..., "token": "mca_...", "login_link": "..."};
        the token is shown this one time. This is how accounts are made while
        ACCOUNT_CREATION=closed.
        """
    static let loginLinkUsage = """
        usage: relaydeckd account login-link --account ACCOUNT_ID

        Prints a link that signs a browser in to the web console of the account: it works
        once, within 15 minutes, also on a server that runs now. The link starts with
        PUBLIC_URL (else http:// and LISTEN).
        """
    static let keyUsage = """
        usage: relaydeckd key create --account ACCOUNT_ID --label LABEL

        Makes an API key of the account and prints {"key": ..., "secret": "mck_..."}; the
        secret is shown this one time. A running server accepts it at once.
        """
    static let backupUsage = """
        usage: relaydeckd backup FILE

        Copies the database to FILE (which must not exist yet) with SQLite's online backup:
        a consistent copy, also while the server runs, that a server can start on.
        """

    /// `account create`; `CommandLine.request` has checked the arguments (none).
    static func accountCreate(output: (String) -> Void = { print($0) }) -> Int32 {
        withStore { store, config in
            let services = operatorServices(store)
            let (account, token) = try await services.accounts.create()
            let link = try await loginLink(for: account.id, store: store, config: config)
            // The creation JSON with one more member: the link for the web console.
            var text = created("account", account.write, "token", token)
            text.removeLast()
            var writer = JSONWriter(capacity: 160)
            writer.string(link)
            text += ",\"login_link\":" + String(decoding: writer.bytes, as: UTF8.self) + "}"
            output(text)
        }
    }

    /// `account login-link --account ID`: the link alone on one line.
    static func loginLink(_ arguments: [String], output: (String) -> Void = { print($0) }) -> Int32 {
        guard let options = Options(arguments, ["--account"]), let accountID = options["--account"], !accountID.isEmpty else {
            printError(loginLinkUsage)
            return 2
        }
        return withStore(refused: "--account \(String(reflecting: accountID))") { store, config in
            output(try await loginLink(for: accountID, store: store, config: config))
        }
    }

    /// A new one-time login link of the account (`Account not found.` for an unknown one).
    private static func loginLink(for accountID: String, store: any SessionStore, config: Config) async throws -> String {
        let token = try await WebSignIn(store: store, clock: SystemClock.shared, random: SystemRandom()).createLoginToken(accountID: accountID)
        return consoleBase(config) + "/app/#login=" + token
    }

    /// `PUBLIC_URL`, else `http://` and the listening address (`localhost` for a wildcard
    /// address, which is no address a browser can open).
    static func consoleBase(_ config: Config) -> String {
        if let publicURL = config.publicURL { return publicURL }
        switch config.listen {
        case .tcp(let host, let port):
            let text = host.description
            let name = text == "0.0.0.0" || text == "::" ? "localhost" : host.family == .v6 ? "[\(text)]" : text
            return "http://\(name):\(port)"
        case .unix:
            return "http://localhost"
        }
    }

    static func keyCreate(_ arguments: [String], output: (String) -> Void = { print($0) }) -> Int32 {
        guard let options = Options(arguments, ["--account", "--label"]),
              let accountID = options["--account"], let rawLabel = options["--label"] else {
            printError(keyUsage)
            return 2
        }
        let label: CheckedText
        switch TextRule.keyLabel.check(rawLabel) {
        case .success(let checked): label = checked
        case .failure(let problem):
            printError("key create: --label: \(problem.message)")
            return 2
        }
        return withStore(refused: "--account \(String(reflecting: accountID))") { store, _ in
            let services = operatorServices(store)
            _ = try await services.accounts.get(accountID)
            let (key, secret) = try await services.keys.create(accountID: accountID, label: label)
            output(created("key", key.write, "secret", secret))
        }
    }

    static func backup(_ arguments: [String], output: (String) -> Void = { print($0) }) -> Int32 {
        guard arguments.count == 1, let file = arguments.first, !file.isEmpty, !file.hasPrefix("-") else {
            printError(backupUsage)
            return 2
        }
        if access(file, F_OK) == 0 {
            printError("backup: \(file) exists; name a new file")
            return 1
        }
        return withStore { store, config in
            guard let sqlite = store as? Store else {
                throw BackupRefused(message: "backup copies the SQLite store; this configuration keeps its data in "
                                    + "PostgreSQL (DATABASE_URL): back that up with pg_dump or the database's own backups")
            }
            try sqlite.read { db in try db.backup(to: file) }
            output("backed up to \(file)")
        }
    }

    /// Runs `body` on the store of the configuration (`DATABASE_PATH`'s SQLite file, or
    /// `DATABASE_URL`'s PostgreSQL database), opened and migrated as the server would, as a
    /// task on a loop of its own (with SQLite every await returns at once, so the task ends
    /// within its first turn): 0 when it did its work, 1 with one line on stderr when not.
    /// `refused` names the value a "not found" is about (`--account "acc_..."`), so the
    /// operator sees which one.
    private static func withStore(refused: String? = nil, _ body: (any SessionStore, Config) async throws -> Void) -> Int32 {
        guard let config = operatorConfig() else { return 1 }
        let setting = config.databaseURL == nil ? "DATABASE_PATH" : "DATABASE_URL"
        do {
            let loop = try EventLoop()
            if let settings = config.databaseURL {
                let connector = try PostgresConnector(settings: settings, loop: loop)
                _ = try PostgresStartup.migrate(connector, loop: loop)
                // One command, one body at a time: one connection.
                let store = PostgresSessionStore(connector: connector, loop: loop, connections: 1)
                try PostgresStartup.connect(store, loop: loop)
                defer { store.stop() }
                // The task ends before `runOnLoop` returns, so `body` does not outlive this call.
                try withoutActuallyEscaping(body) { body in try runOnLoop(loop) { try await body(store, config) } }
                return 0
            }
            var options = Database.Options()
            options.synchronous = config.durability.synchronous
            let store = Store(path: config.databasePath, options: options)
            defer { store.close() }
            guard try store.open() else {
                printError("DATABASE_PATH: cannot open \(config.databasePath)")
                return 1
            }
            try withoutActuallyEscaping(body) { body in try runOnLoop(loop) { try await body(store, config) } }
            return 0
        } catch let error as DomainError {
            switch error {
            case .notFound(let message): printError(refused.map { "\($0): \(message)" } ?? message)
            case .conflict(let message), .storageFull(let message): printError(message)
            case .validation(let problems): printError(problems.map { "\($0.field): \($0.message)" }.joined(separator: " "))
            }
            return 1
        } catch {
            printError("\(setting): \(error)")
            return 1
        }
    }

    /// `body` as a task on `loop`, turned until the task ends; its error rethrown.
    private static func runOnLoop(_ loop: EventLoop, _ body: @escaping () async throws -> Void) throws {
        var outcome: Result<Void, any Error>?
        loop.startTask {
            do { try await body(); outcome = .success(()) } catch { outcome = .failure(error) }
        }
        _ = loop.run(until: { outcome != nil })
        try outcome?.get()
    }

    private static func operatorServices(_ store: any SessionStore) -> (accounts: Accounts, keys: Keys) {
        let hub = EventHub()
        let clock = SystemClock.shared
        let random = SystemRandom()
        return (Accounts(store: store, clock: clock, random: random, hub: hub),
                Keys(store: store, clock: clock, random: random, hub: hub))
    }

    private static func created(_ objectKey: StaticString, _ write: (inout JSONWriter) -> Void,
                                _ secretKey: StaticString, _ secret: Secret) -> String {
        String(decoding: CreationJSON.bytes(objectKey, write, secretKey: secretKey, secret), as: UTF8.self)
    }

    /// `--name value` pairs, each name at most once and all of them known.
    struct Options {
        private var values: [String: String] = [:]

        init?(_ arguments: [String], _ known: Set<String>) {
            var index = 0
            while index < arguments.count {
                let name = arguments[index]
                guard known.contains(name), index + 1 < arguments.count, values[name] == nil else { return nil }
                values[name] = arguments[index + 1]
                index += 2
            }
        }

        subscript(name: String) -> String? { values[name] }
    }
}

/// `backup` with a store it cannot copy.
private struct BackupRefused: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
