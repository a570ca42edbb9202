/// A message from the server, parsed from its type byte and body. Only what this client
/// uses is read; a message it never asks for (COPY's, function calls') is a protocol
/// violation, since it could not tell where that exchange ends.
enum BackendMessage {
    case authentication(AuthenticationRequest)
    case backendKeyData(processID: Int32, secretKey: Int32)
    case parameterStatus(name: String, value: String)
    case readyForQuery(TransactionStatus)
    case error(ServerNotice)
    case notice(ServerNotice)
    case notification(PostgresNotification)
    case parseComplete
    case bindComplete
    case closeComplete
    case noData
    case parameterDescription
    case rowDescription([ColumnDescription])
    case dataRow([UInt8])
    case commandComplete(tag: String)
    case emptyQueryResponse
    case portalSuspended
    case negotiateProtocolVersion

    static func parse(type: UInt8, body: [UInt8]) throws(PostgresError) -> BackendMessage {
        var reader = MessageReader(body)
        switch type {
        case UInt8(ascii: "R"): return .authentication(try AuthenticationRequest.parse(&reader))
        case UInt8(ascii: "K"): return .backendKeyData(processID: try reader.int32(), secretKey: try reader.int32())
        case UInt8(ascii: "S"): return .parameterStatus(name: try reader.cString(), value: try reader.cString())
        case UInt8(ascii: "Z"): return .readyForQuery(try TransactionStatus.parse(try reader.byte()))
        case UInt8(ascii: "E"): return .error(try ServerNotice.parse(&reader))
        case UInt8(ascii: "N"): return .notice(try ServerNotice.parse(&reader))
        case UInt8(ascii: "A"):
            let processID = try reader.int32()
            return .notification(PostgresNotification(processID: processID, channel: try reader.cString(), payload: try reader.cString()))
        case UInt8(ascii: "1"): return .parseComplete
        case UInt8(ascii: "2"): return .bindComplete
        case UInt8(ascii: "3"): return .closeComplete
        case UInt8(ascii: "n"): return .noData
        case UInt8(ascii: "t"): return .parameterDescription
        case UInt8(ascii: "T"): return .rowDescription(try ColumnDescription.parseAll(&reader))
        case UInt8(ascii: "D"): return .dataRow(body)
        case UInt8(ascii: "C"): return .commandComplete(tag: try reader.cString())
        case UInt8(ascii: "I"): return .emptyQueryResponse
        case UInt8(ascii: "s"): return .portalSuspended
        case UInt8(ascii: "v"): return .negotiateProtocolVersion
        default:
            throw PostgresError(.protocolViolation, "the server sent a message of type \(Self.name(type)) this client never asks for")
        }
    }

    /// The type byte as a character when printable, else its number.
    static func name(_ type: UInt8) -> String {
        (0x21...0x7E).contains(type) ? "'\(Character(Unicode.Scalar(type)))'" : "0x" + String(type, radix: 16)
    }
}

/// ReadyForQuery's transaction status.
public enum TransactionStatus: Sendable, Equatable {
    /// Not in a transaction block.
    case idle
    /// In a transaction block.
    case inTransaction
    /// In a failed transaction block: every statement fails until ROLLBACK.
    case failed

    static func parse(_ byte: UInt8) throws(PostgresError) -> TransactionStatus {
        switch byte {
        case UInt8(ascii: "I"): return .idle
        case UInt8(ascii: "T"): return .inTransaction
        case UInt8(ascii: "E"): return .failed
        default: throw PostgresError(.protocolViolation, "ReadyForQuery with an unknown transaction status")
        }
    }
}

/// A NOTIFY delivered to a connection that LISTENs on its channel.
public struct PostgresNotification: Sendable, Equatable {
    /// The server process of the session that notified.
    public let processID: Int32
    public let channel: String
    public let payload: String
}
