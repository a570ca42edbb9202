#if canImport(Glibc)
import Glibc
#endif
import Logging
import PostgresStore

extension CommandLine {
    static let usage = """
        usage: relaydeckd [command]

        With no command, serves. Settings come from the environment (see the README).

        commands:
          version        print the version
          check-config   check the environment and print the settings (secrets hidden)
          resolve HOST   print the addresses this binary finds for a host name
          account create                            make an account; prints its token once
          account login-link --account ID           print a one-time sign-in link for the web console
          key create --account ID --label LABEL     make an API key; prints its secret once
          backup FILE    copy the database to FILE, also while the server runs
          migrate-to-postgres --from FILE [--to URL]
                         copy the SQLite store FILE into an empty PostgreSQL database
          help [COMMAND] print this text, or the usage of COMMAND

        Each command and subcommand prints its usage with --help or -h.
        """

    /// Runs the command line; returns the exit status. `request` has answered `--help`
    /// and every wrong use before a command runs.
    static func main(_ arguments: [String]) -> Int32 {
        switch request(arguments) {
        case .usage(let text):
            print(text)
            return 0
        case .misuse(let text):
            printError(text)
            return 2
        case .run(let words, let rest):
            switch words {
            case []: return serve()
            case ["version"]:
                print("relaydeckd \(Version.current)")
                return 0
            case ["check-config"]: return checkConfig()
            case ["resolve"]: return resolve(rest)
            case ["account", "create"]: return accountCreate()
            case ["account", "login-link"]: return loginLink(rest)
            case ["key", "create"]: return keyCreate(rest)
            case ["backup"]: return backup(rest)
            case ["migrate-to-postgres"]: return migrateToPostgres(rest)
            default:
                // Every command of the table that runs is named above.
                printError("no command \"\(words.joined(separator: " "))\"")
                return 2
            }
        }
    }

    static func loadConfig() -> (Config, [String: String])? {
        let environment = ProcessEnvironment.current()
        do {
            return (try Config.load(environment: environment), environment)
        } catch {
            printError(error.description)
            return nil
        }
    }

    static func checkConfig() -> Int32 {
        guard let (config, _) = loadConfig() else { return 1 }
        if let apns = config.apns {
            do {
                try PushWiring.check(apns)
            } catch {
                printError("cannot start: \(error)")
                return 1
            }
        }
        print("configuration ok")
        for (variable, value) in config.summary {
            print("\(variable)=\(value)")
        }
        return 0
    }

    static func serve() -> Int32 {
        guard let (config, environment) = loadConfig() else { return 1 }
        Log.configure(level: config.logLevel, format: config.logFormat,
                      journal: JournalStream.isStandardError(environment["JOURNAL_STREAM"]))
        raiseDescriptorLimit()
        do {
            return try Daemon(config: config, environment: environment).run()
        } catch let failure as PostgresStartup.Failure {
            printError("DATABASE_URL: \(failure)")
            return 1
        } catch {
            printError("cannot start: \(error)")
            return 1
        }
    }

    /// Many idle keep-alive connections need many descriptors: take the hard limit.
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }
}
