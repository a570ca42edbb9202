import Testing
@testable import relaydeckd

/// Every command and subcommand answers `--help` and `-h` with its own usage, and every wrong
/// use with the usage as a misuse, before anything runs.
@Suite("Command line: help and wrong use")
struct CommandLineHelpTests {
    /// Each command's words and the first line of its usage.
    static let everyCommand: [([String], String)] = [
        ([], "usage: relaydeckd [command]"),
        (["version"], "usage: relaydeckd version"),
        (["check-config"], "usage: relaydeckd check-config"),
        (["resolve"], "usage: relaydeckd resolve HOST"),
        (["account"], "usage: relaydeckd account create"),
        (["account", "create"], "usage: relaydeckd account create"),
        (["account", "login-link"], "usage: relaydeckd account login-link --account ACCOUNT_ID"),
        (["key"], "usage: relaydeckd key create --account ACCOUNT_ID --label LABEL"),
        (["key", "create"], "usage: relaydeckd key create --account ACCOUNT_ID --label LABEL"),
        (["backup"], "usage: relaydeckd backup FILE"),
        (["migrate-to-postgres"], "usage: relaydeckd migrate-to-postgres --from FILE [--to URL]"),
        (["help"], "usage: relaydeckd help [COMMAND [SUBCOMMAND]]"),
    ]

    @Test("the table names every command the usage lists")
    func tableIsComplete() {
        #expect(Self.everyCommand.map(\.0) == CommandLine.commands.map(\.words))
    }

    @Test("--help and -h print the command's usage", arguments: everyCommand.flatMap { words, first in
        [(words + ["--help"], first), (words + ["-h"], first), (["help"] + words, first)]
    })
    func help(arguments: [String], firstLine: String) {
        guard case .usage(let text) = CommandLine.request(arguments) else {
            Issue.record("\(arguments): not answered with the usage")
            return
        }
        #expect(text.split(separator: "\n").first.map(String.init) == firstLine, "\(arguments)")
        #expect(CommandLine.main(arguments) == 0, "\(arguments)")
    }

    @Test("--help after a command's arguments still prints its usage, but not as an option's value", arguments: [
        (["resolve", "localhost", "--help"], true),
        (["backup", "/tmp/copy.db", "-h"], true),
        (["key", "create", "--account", "acc_1", "--label", "x", "--help"], true),
        (["key", "create", "--help", "--account", "acc_1"], true),
        (["key", "create", "--account", "acc_1", "--label", "--help"], false),
        (["account", "login-link", "--account", "-h"], false),
        (["migrate-to-postgres", "--from", "a.db", "--help"], true),
        (["migrate-to-postgres", "--from", "-h"], false),
        (["migrate-to-postgres", "--from", "a.db", "--to", "--help"], false),
    ])
    func helpAmongArguments(arguments: [String], isHelp: Bool) {
        if case .usage = CommandLine.request(arguments) {
            #expect(isHelp, "\(arguments)")
        } else {
            #expect(!isHelp, "\(arguments)")
        }
    }

    @Test("a wrong use is a misuse with the command's usage", arguments: [
        (["version", "extra"], "usage: relaydeckd version"),
        (["check-config", "extra"], "usage: relaydeckd check-config"),
        (["resolve"], "usage: relaydeckd resolve HOST"),
        (["resolve", "a", "b"], "usage: relaydeckd resolve HOST"),
        (["resolve", "--verbose"], "usage: relaydeckd resolve HOST"),
        (["account"], "usage: relaydeckd account create"),
        (["account", "create", "extra"], "usage: relaydeckd account create"),
        (["account", "login-link"], "usage: relaydeckd account login-link --account ACCOUNT_ID"),
        (["account", "login-link", "--account", ""], "usage: relaydeckd account login-link --account ACCOUNT_ID"),
        (["account", "login-link", "--account"], "usage: relaydeckd account login-link --account ACCOUNT_ID"),
        (["key"], "usage: relaydeckd key create --account ACCOUNT_ID --label LABEL"),
        (["key", "create"], "usage: relaydeckd key create --account ACCOUNT_ID --label LABEL"),
        (["key", "create", "--account", "a"], "usage: relaydeckd key create --account ACCOUNT_ID --label LABEL"),
        (["key", "create", "--account", "a", "--label", "b", "--label", "c"], "usage: relaydeckd key create --account ACCOUNT_ID --label LABEL"),
        (["key", "create", "--account", "a", "--label", "b", "--colour", "c"], "usage: relaydeckd key create --account ACCOUNT_ID --label LABEL"),
        (["backup"], "usage: relaydeckd backup FILE"),
        (["backup", "-x"], "usage: relaydeckd backup FILE"),
        (["backup", "a", "b"], "usage: relaydeckd backup FILE"),
        (["migrate-to-postgres"], "usage: relaydeckd migrate-to-postgres --from FILE [--to URL]"),
        (["migrate-to-postgres", "--to", "postgres://db/x"], "usage: relaydeckd migrate-to-postgres --from FILE [--to URL]"),
        (["migrate-to-postgres", "--from", ""], "usage: relaydeckd migrate-to-postgres --from FILE [--to URL]"),
        (["migrate-to-postgres", "--from", "a.db", "--to", ""], "usage: relaydeckd migrate-to-postgres --from FILE [--to URL]"),
        (["migrate-to-postgres", "--from", "a.db", "--from", "b.db"], "usage: relaydeckd migrate-to-postgres --from FILE [--to URL]"),
        (["migrate-to-postgres", "a.db"], "usage: relaydeckd migrate-to-postgres --from FILE [--to URL]"),
    ])
    func misuse(arguments: [String], firstLine: String) {
        guard case .misuse(let text) = CommandLine.request(arguments) else {
            Issue.record("\(arguments): not a misuse")
            return
        }
        #expect(text.split(separator: "\n").first.map(String.init) == firstLine, "\(arguments)")
    }

    @Test("an unknown command or subcommand is named, also with --help after it", arguments: [
        (["frobnicate"], "unknown command \"frobnicate\""),
        (["frobnicate", "--help"], "unknown command \"frobnicate\""),
        (["account", "delete"], "unknown command \"account delete\""),
        (["account", "delete", "-h"], "unknown command \"account delete\""),
        (["key", "make"], "unknown command \"key make\""),
        (["help", "frobnicate"], "help: no command \"frobnicate\""),
        (["help", "account", "delete"], "help: no command \"account delete\""),
    ])
    func unknownCommand(arguments: [String], firstLine: String) {
        guard case .misuse(let text) = CommandLine.request(arguments) else {
            Issue.record("\(arguments): not a misuse")
            return
        }
        #expect(text.split(separator: "\n").first.map(String.init) == firstLine, "\(arguments)")
    }

    @Test("a right use runs the command with the arguments after its words", arguments: [
        ([], [], []),
        (["version"], ["version"], []),
        (["--version"], ["version"], []),
        (["check-config"], ["check-config"], []),
        (["resolve", "localhost"], ["resolve"], ["localhost"]),
        (["account", "create"], ["account", "create"], []),
        (["account", "login-link", "--account", "acc_1"], ["account", "login-link"], ["--account", "acc_1"]),
        (["key", "create", "--label", "x", "--account", "acc_1"], ["key", "create"], ["--label", "x", "--account", "acc_1"]),
        (["backup", "/tmp/copy.db"], ["backup"], ["/tmp/copy.db"]),
        (["migrate-to-postgres", "--from", "a.db"], ["migrate-to-postgres"], ["--from", "a.db"]),
        (["migrate-to-postgres", "--to", "postgres://db/x", "--from", "a.db"], ["migrate-to-postgres"], ["--to", "postgres://db/x", "--from", "a.db"]),
    ] as [([String], [String], [String])])
    func run(arguments: [String], words: [String], rest: [String]) {
        guard case .run(let ranWords, let ranRest) = CommandLine.request(arguments) else {
            Issue.record("\(arguments): does not run")
            return
        }
        #expect(ranWords == words && ranRest == rest, "\(arguments)")
    }
}
