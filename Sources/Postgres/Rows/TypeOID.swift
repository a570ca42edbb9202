/// The OIDs of the built-in types this client reads (`pg_type.oid`, fixed since PostgreSQL 7).
enum TypeOID {
    static let bool: UInt32 = 16
    static let bytea: UInt32 = 17
    static let name: UInt32 = 19
    static let int8: UInt32 = 20
    static let int2: UInt32 = 21
    static let int4: UInt32 = 23
    static let text: UInt32 = 25
    static let oid: UInt32 = 26
    static let json: UInt32 = 114
    static let float4: UInt32 = 700
    static let float8: UInt32 = 701
    static let unknown: UInt32 = 705
    static let bpchar: UInt32 = 1042
    static let varchar: UInt32 = 1043
    static let jsonb: UInt32 = 3802

    static func name(_ oid: UInt32) -> String {
        switch oid {
        case bool: "bool"
        case bytea: "bytea"
        case name: "name"
        case int8: "int8"
        case int2: "int2"
        case int4: "int4"
        case text: "text"
        case Self.oid: "oid"
        case json: "json"
        case float4: "float4"
        case float8: "float8"
        case unknown: "unknown"
        case bpchar: "bpchar"
        case varchar: "varchar"
        case jsonb: "jsonb"
        default: "the type with OID \(oid)"
        }
    }
}
