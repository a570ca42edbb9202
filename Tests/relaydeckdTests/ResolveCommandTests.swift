import EventLoop
import Testing
@testable import relaydeckd

@Suite struct ResolveCommandTests {
    /// A DNS label may have 63 bytes: the C library refuses a longer one without asking a server.
    static let unresolvable = String(repeating: "a", count: 64) + ".invalid"

    func run(_ arguments: [String]) -> (status: Int32, lines: [String]) {
        var lines: [String] = []
        let status = CommandLine.resolve(arguments) { lines.append($0) }
        return (status, lines)
    }

    @Test func printsEachAddressOfLocalhostOnALineAndExits0() {
        let (status, lines) = run(["localhost"])
        #expect(status == 0)
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0 == "127.0.0.1" || $0 == "::1" }, "\(lines)")
    }

    @Test func printsAnAddressLiteralInItsCanonicalForm() {
        let (status, lines) = run(["2001:DB8:0:0::1"])
        #expect(status == 0)
        #expect(lines == ["2001:db8::1"])
    }

    @Test func aNameThatDoesNotResolveExits1AndPrintsNothing() {
        let (status, lines) = run([Self.unresolvable])
        #expect(status == 1)
        #expect(lines.isEmpty)
    }

    @Test(arguments: [[], [""], ["localhost", "extra"]])
    func anythingButOneHostIsAUsageErrorExiting2(arguments: [String]) {
        let (status, lines) = run(arguments)
        #expect(status == 2)
        #expect(lines.isEmpty)
    }

    @Test func theCommandLineRoutesResolve() {
        #expect(CommandLine.main(["resolve"]) == 2)
        #expect(CommandLine.main(["resolve", "127.0.0.1"]) == 0)
    }
}
