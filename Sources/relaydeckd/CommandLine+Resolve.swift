import EventLoop

extension CommandLine {
    /// `relaydeckd resolve HOST`: the addresses the server itself gets for a name, one a line.
    /// The binary is static, so its lookups can differ from those of other programs on the
    /// same machine (only the `files` and `dns` sources of nsswitch.conf); this shows them.
    static func resolve(_ arguments: [String], output: (String) -> Void = { print($0) }) -> Int32 {
        guard arguments.count == 1, let host = arguments.first, !host.isEmpty else {
            printError("usage: relaydeckd resolve HOST")
            return 2
        }
        do {
            for address in try NameResolver.addresses(of: host) {
                output(address.description)
            }
            return 0
        } catch {
            printError("resolve: \(error.description)")
            return 1
        }
    }
}
