/// One column of a RowDescription: its name and type (by OID). Every result column comes in
/// binary (`MessageWriter.bind` asks for it), so the type alone says how to read it.
public struct ColumnDescription: Sendable, Equatable {
    public let name: String
    public let typeOID: UInt32

    static func parseAll(_ reader: inout MessageReader) throws(PostgresError) -> [ColumnDescription] {
        let count = Int(try reader.int16())
        guard count >= 0 else { throw PostgresError(.protocolViolation, "a RowDescription with a negative column count") }
        var columns: [ColumnDescription] = []
        columns.reserveCapacity(count)
        for _ in 0..<count {
            let name = try reader.cString()
            _ = try reader.int32()  // the table's OID
            _ = try reader.int16()  // the column's number in it
            let type = UInt32(bitPattern: try reader.int32())
            _ = try reader.int16()  // the type's size
            _ = try reader.int32()  // the type modifier
            _ = try reader.int16()  // the format: zero in a statement's description
            columns.append(ColumnDescription(name: name, typeOID: type))
        }
        return columns
    }
}
