/// The messages this client sends (PostgreSQL's "Message Formats"), each appended to a
/// `MessageWriter`.
extension MessageWriter {
    /// Protocol 3.0, as the start-up message's first field.
    static let protocolVersion: Int32 = 196_608
    /// The start-up message's version field that asks for TLS instead (1234.5679).
    static let sslRequestCode: Int32 = 80_877_103

    mutating func sslRequest() {
        begin(nil)
        int32(Self.sslRequestCode)
        end()
    }

    mutating func startup(_ parameters: [(String, String)]) {
        begin(nil)
        int32(Self.protocolVersion)
        for (name, value) in parameters {
            cString(name)
            cString(value)
        }
        byte(0)
        end()
    }

    /// A cleartext or MD5 password (`p`).
    mutating func password(_ text: [UInt8]) {
        begin(UInt8(ascii: "p"))
        raw(text)
        byte(0)
        end()
    }

    /// SASLInitialResponse: the mechanism chosen and the client's first message.
    mutating func saslInitialResponse(mechanism: String, _ data: [UInt8]) {
        begin(UInt8(ascii: "p"))
        cString(mechanism)
        int32(Int32(data.count))
        raw(data)
        end()
    }

    mutating func saslResponse(_ data: [UInt8]) {
        begin(UInt8(ascii: "p"))
        raw(data)
        end()
    }

    /// Parse: a statement named `name` ("" for the unnamed one), types left to the server.
    mutating func parse(name: String, sql: String) {
        begin(UInt8(ascii: "P"))
        cString(name)
        cString(sql)
        int16(0)
        end()
    }

    /// Describe of a statement: its ParameterDescription and RowDescription (or NoData).
    mutating func describeStatement(_ name: String) {
        begin(UInt8(ascii: "D"))
        byte(UInt8(ascii: "S"))
        cString(name)
        end()
    }

    /// Bind into the unnamed portal, each parameter in its own format, every result column
    /// in binary (one format code for all).
    mutating func bind(statement: String, _ values: [PostgresValue]) {
        begin(UInt8(ascii: "B"))
        cString("")
        cString(statement)
        int16(Int16(truncatingIfNeeded: values.count))
        for value in values { int16(value.isBinary ? 1 : 0) }
        int16(Int16(truncatingIfNeeded: values.count))
        for value in values { parameter(value) }
        int16(1)
        int16(1)
        end()
    }

    /// A parameter's length and bytes (-1 for NULL), written straight in: no array of its own
    /// for each value.
    private mutating func parameter(_ value: PostgresValue) {
        if case .bytes(let data) = value {
            int32(Int32(truncatingIfNeeded: data.count))
            raw(data)
        } else if let text = value.text {
            int32(Int32(truncatingIfNeeded: text.utf8.count))
            utf8(text)
        } else {
            int32(-1)
        }
    }

    /// Execute the unnamed portal to its last row.
    mutating func execute() {
        begin(UInt8(ascii: "E"))
        cString("")
        int32(0)
        end()
    }

    mutating func sync() {
        begin(UInt8(ascii: "S"))
        end()
    }

    mutating func terminate() {
        begin(UInt8(ascii: "X"))
        end()
    }
}
