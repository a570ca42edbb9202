// libFuzzer entry for the CBOR decoder (compiled together with Sources/AppIntegrity/CBOR).
// Properties: decode never traps; decode succeeds only when decodePrefix consumed every byte,
// and both agree on the value.
@_cdecl("LLVMFuzzerTestOneInput")
public func cborFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let whole = try? CBORDecoder.decode(bytes)
    let prefix = try? CBORDecoder.decodePrefix(bytes)
    if let whole {
        guard let (value, used) = prefix else { preconditionFailure("decode accepted what decodePrefix refused") }
        precondition(used == bytes.count, "decode accepted trailing bytes")
        // Compared as text: a float NaN (a valid item) is not equal to itself.
        precondition(String(describing: value) == String(describing: whole), "decode and decodePrefix disagree")
    } else if let (_, used) = prefix {
        precondition(used < bytes.count, "decodePrefix consumed everything but decode refused it")
    }
    return 0
}
