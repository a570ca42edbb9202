extension PostgresRow {
    public func int64(_ name: String) throws(PostgresError) -> Int64 {
        try required(name, try optionalInt64(name))
    }

    public func int(_ name: String) throws(PostgresError) -> Int {
        Int(try int64(name))
    }

    public func optionalInt64(_ name: String) throws(PostgresError) -> Int64? {
        let (type, bytes) = try field(name)
        guard let bytes else { return nil }
        let width: Int
        switch type {
        case TypeOID.int8: width = 8
        case TypeOID.int4: width = 4
        case TypeOID.int2: width = 2
        case TypeOID.oid: return Int64(UInt32(truncatingIfNeeded: try bigEndian(name, bytes, 4)))
        default: throw mismatch("column \(name) is \(TypeOID.name(type)), not an integer")
        }
        let bits = try bigEndian(name, bytes, width)
        // Sign-extend from the column's width.
        let shift = UInt64(64 - width * 8)
        return Int64(bitPattern: bits << shift) >> shift
    }

    public func double(_ name: String) throws(PostgresError) -> Double {
        try required(name, try optionalDouble(name))
    }

    public func optionalDouble(_ name: String) throws(PostgresError) -> Double? {
        let (type, bytes) = try field(name)
        guard let bytes else { return nil }
        switch type {
        case TypeOID.float8: return Double(bitPattern: try bigEndian(name, bytes, 8))
        case TypeOID.float4: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: try bigEndian(name, bytes, 4))))
        default: throw mismatch("column \(name) is \(TypeOID.name(type)), not a float")
        }
    }

    public func bool(_ name: String) throws(PostgresError) -> Bool {
        try required(name, try optionalBool(name))
    }

    public func optionalBool(_ name: String) throws(PostgresError) -> Bool? {
        let (type, bytes) = try field(name)
        guard let bytes else { return nil }
        guard type == TypeOID.bool else { throw mismatch("column \(name) is \(TypeOID.name(type)), not bool") }
        guard bytes.count == 1, bytes.first! <= 1 else { throw mismatch("column \(name) holds a bool that is not 0 or 1") }
        return bytes.first == 1
    }

    public func text(_ name: String) throws(PostgresError) -> String {
        try required(name, try optionalText(name))
    }

    public func optionalText(_ name: String) throws(PostgresError) -> String? {
        let (type, bytes) = try field(name)
        guard var bytes else { return nil }
        switch type {
        case TypeOID.text, TypeOID.varchar, TypeOID.bpchar, TypeOID.name, TypeOID.unknown, TypeOID.json:
            break
        case TypeOID.jsonb:
            // Binary jsonb is a version byte (1) and the JSON text.
            guard bytes.first == 1 else { throw mismatch("column \(name) holds jsonb of an unknown version") }
            bytes = bytes.dropFirst()
        default:
            throw mismatch("column \(name) is \(TypeOID.name(type)), not text")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw mismatch("column \(name) is not UTF-8") }
        return text
    }

    public func bytes(_ name: String) throws(PostgresError) -> [UInt8] {
        try required(name, try optionalBytes(name))
    }

    public func optionalBytes(_ name: String) throws(PostgresError) -> [UInt8]? {
        let (type, bytes) = try field(name)
        guard let bytes else { return nil }
        guard type == TypeOID.bytea else { throw mismatch("column \(name) is \(TypeOID.name(type)), not bytea") }
        return Array(bytes)
    }

    /// Whether the column is NULL (any type).
    public func isNull(_ name: String) throws(PostgresError) -> Bool {
        try field(name).bytes == nil
    }

    private func required<Value>(_ name: String, _ value: Value?) throws(PostgresError) -> Value {
        guard let value else { throw mismatch("column \(name) is NULL") }
        return value
    }

    private func bigEndian(_ name: String, _ bytes: ArraySlice<UInt8>, _ width: Int) throws(PostgresError) -> UInt64 {
        guard bytes.count == width else { throw mismatch("column \(name) holds \(bytes.count) bytes, not \(width)") }
        return bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
