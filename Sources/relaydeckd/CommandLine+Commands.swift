/// The table of commands: each one's words, usage text and the shape of its arguments. It is
/// read before anything runs, so every command answers `--help` and `-h` the same way (its
/// usage on stdout, exit 0) and every wrong use the same way (the usage on stderr, exit 2),
/// and a command never runs with a `--help` it would take for a host or a file name.
extension CommandLine {
    struct Command: Sendable {
        /// `["account", "create"]`
        let words: [String]
        let usage: String
        /// Options followed by a value: the value is never read as `--help`.
        var valueOptions: Set<String> = []
        /// Whether the arguments after the words have the command's shape; nil for a group
        /// (`account`, `key`), which is used through one of its subcommands.
        let accepts: (@Sendable ([String]) -> Bool)?
    }

    static let commands: [Command] = [
        Command(words: [], usage: usage, accepts: { $0.isEmpty }),
        Command(words: ["version"], usage: "usage: relaydeckd version\n\nPrints the version.", accepts: { $0.isEmpty }),
        Command(words: ["check-config"], usage: checkConfigUsage, accepts: { $0.isEmpty }),
        Command(words: ["resolve"], usage: resolveUsage, accepts: { $0.count == 1 && !$0[0].isEmpty && !$0[0].hasPrefix("-") }),
        Command(words: ["account"], usage: accountUsage, accepts: nil),
        Command(words: ["account", "create"], usage: accountCreateUsage, accepts: { $0.isEmpty }),
        Command(words: ["account", "login-link"], usage: loginLinkUsage, valueOptions: ["--account"],
                accepts: { nonEmpty(Options($0, ["--account"])?["--account"]) }),
        Command(words: ["key"], usage: keyUsage, accepts: nil),
        Command(words: ["key", "create"], usage: keyUsage, valueOptions: ["--account", "--label"],
                accepts: { Options($0, ["--account", "--label"]).map { nonEmpty($0["--account"]) && $0["--label"] != nil } ?? false }),
        Command(words: ["backup"], usage: backupUsage, accepts: { $0.count == 1 && !$0[0].isEmpty && !$0[0].hasPrefix("-") }),
        Command(words: ["migrate-to-postgres"], usage: migrateToPostgresUsage, valueOptions: ["--from", "--to"],
                accepts: { Options($0, ["--from", "--to"]).map { nonEmpty($0["--from"]) && $0["--to"] != "" } ?? false }),
        Command(words: ["help"], usage: helpUsage, accepts: { _ in true }),
    ]

    static let checkConfigUsage = """
        usage: relaydeckd check-config

        Reads the settings from the environment as a start would, checks them (also the APNs
        key), and prints "configuration ok" and each setting (secrets hidden); a bad setting
        prints one line naming the variable and exits 1.
        """
    static let resolveUsage = """
        usage: relaydeckd resolve HOST

        Prints the addresses this binary finds for HOST, one a line (a static binary reads
        only the files and dns sources of nsswitch.conf).
        """
    static let helpUsage = """
        usage: relaydeckd help [COMMAND [SUBCOMMAND]]

        Prints the usage of relaydeckd, or of the command named.
        """

    /// What the command line asks for, decided before anything runs.
    enum Request {
        /// `--help`, `-h` or `help ...`: the text goes to stdout, exit 0.
        case usage(String)
        /// A wrong use: the text goes to stderr, exit 2.
        case misuse(String)
        /// The command of these words with the arguments after them.
        case run([String], [String])
    }

    static func request(_ arguments: [String]) -> Request {
        if arguments == ["--version"] { return .run(["version"], []) }
        let (command, rest) = lookUp(arguments)
        // A word no command or group has is a wrong use, also with --help after it.
        if command.words.isEmpty || command.accepts == nil, let first = rest.first, first != "--help", first != "-h" {
            let words = (command.words + [first]).joined(separator: " ")
            return .misuse("unknown command \"\(words.prefix(64))\"\n\(command.usage)")
        }
        if wantsHelp(rest, command) { return .usage(command.usage) }
        if command.words == ["help"] {
            let (named, extra) = lookUp(rest)
            guard extra.isEmpty else { return .misuse("help: no command \"\(rest.joined(separator: " ").prefix(64))\"\n\(usage)") }
            return .usage(named.usage)
        }
        guard let accepts = command.accepts, accepts(rest) else { return .misuse(command.usage) }
        return .run(command.words, rest)
    }

    /// The command with the most leading words of `arguments`, and the arguments after them.
    static func lookUp(_ arguments: [String]) -> (Command, [String]) {
        var best = commands[0]
        for command in commands where command.words.count > best.words.count
            && arguments.starts(with: command.words) {
            best = command
        }
        return (best, Array(arguments.dropFirst(best.words.count)))
    }

    /// `--help` or `-h` anywhere but as an option's value.
    static func wantsHelp(_ arguments: [String], _ command: Command) -> Bool {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--help" || argument == "-h" { return true }
            index += command.valueOptions.contains(argument) ? 2 : 1
        }
        return false
    }

    private static func nonEmpty(_ text: String?) -> Bool { !(text ?? "").isEmpty }
}
