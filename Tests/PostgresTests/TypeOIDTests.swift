import Testing
@testable import Postgres

/// The type names in the client's errors ("column n is numeric, not an integer").
@Suite struct TypeOIDTests {
    @Test func eachKnownTypeIsNamedAsItselfAndAnyOtherByItsOID() {
        #expect(TypeOID.name(26) == "oid")
        #expect(TypeOID.name(701) == "float8")
        #expect(TypeOID.name(3802) == "jsonb")
        #expect(TypeOID.name(20) == "int8")
        // numeric, which the client does not read: once named "oid" by a pattern that
        // matched the parameter instead of the constant.
        #expect(TypeOID.name(1700) == "the type with OID 1700")
    }
}
