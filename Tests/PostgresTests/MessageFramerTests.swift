import Testing
@testable import Postgres

/// The framer refuses a length before it keeps a byte of the body, and cuts messages at
/// any split of the stream.
@Suite struct MessageFramerTests {
    func feed(_ framer: inout MessageFramer, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { framer.append($0) }
    }

    @Test func aRowThatSays2GBIsRefusedFromItsHeader() {
        var framer = MessageFramer(limits: PostgresLimits())
        feed(&framer, [UInt8(ascii: "D"), 0x7F, 0xFF, 0xFF, 0xFF])
        #expect(throws: PostgresError(.protocolViolation,
                                      "a message of type 'D' of 2147483643 bytes, over this client's limit of 16777216")) {
            try framer.next()
        }
        #expect(framer.pendingBytes == 5)
    }

    @Test func aLengthUnderFourIsRefused() {
        var framer = MessageFramer(limits: PostgresLimits())
        feed(&framer, [UInt8(ascii: "Z"), 0xFF, 0xFF, 0xFF, 0xFE])
        #expect(throws: PostgresError(.protocolViolation, "a message of type 'Z' with a length of -2")) { try framer.next() }
    }

    @Test func eachTypeHasItsOwnLimit() {
        var framer = MessageFramer(limits: PostgresLimits())
        feed(&framer, [UInt8(ascii: "A"), 0x00, 0x01, 0x00, 0x00])
        #expect(throws: PostgresError(.protocolViolation, "a message of type 'A' of 65532 bytes, over this client's limit of 8070")) {
            try framer.next()
        }
    }

    @Test func messagesComeOutWholeAtAnySplit() throws {
        let stream: [UInt8] = [UInt8(ascii: "Z"), 0, 0, 0, 5, UInt8(ascii: "I"),
                               UInt8(ascii: "C"), 0, 0, 0, 11, 0x53, 0x45, 0x4C, 0x45, 0x43, 0x54, 0]
        for split in 0...stream.count {
            var framer = MessageFramer(limits: PostgresLimits())
            var messages: [(UInt8, [UInt8])] = []
            feed(&framer, Array(stream[..<split]))
            while let message = try framer.next() { messages.append(message) }
            feed(&framer, Array(stream[split...]))
            while let message = try framer.next() { messages.append(message) }
            #expect(messages.map(\.0) == [UInt8(ascii: "Z"), UInt8(ascii: "C")])
            #expect(messages.map(\.1) == [[UInt8(ascii: "I")], Array("SELECT\0".utf8)])
            #expect(framer.pendingBytes == 0)
        }
    }
}
