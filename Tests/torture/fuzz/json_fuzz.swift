// libFuzzer entry for the JSON parser (compiled together with Sources/JSON by build.sh).
// Properties checked on every input, besides "no crash, no hang, no leak of ASan's kind":
// - a document that parses, written back by JSONWriter, parses again to an equal value and
//   writes the same bytes (the writer's output is always valid JSON, and stable);
// - parsing through a buffer pointer and through an array agree;
// - the validator throws exactly what the parser throws (or nothing when it accepts).
@_cdecl("LLVMFuzzerTestOneInput")
public func jsonFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var validated: JSONParseError?
    do { try JSONParser.validate(bytes) } catch { validated = error }
    let first: JSON
    do {
        first = try JSONParser.parse(bytes)
    } catch {
        precondition(validated == error, "the validator and the parser disagree")
        return 0
    }
    precondition(validated == nil, "the validator refused what the parser accepts")
    let viaPointer = try? bytes.withUnsafeBytes { buffer throws(JSONParseError) in try JSONParser.parse(buffer) }
    precondition(viaPointer == first, "the two entry points disagree")
    var writer = JSONWriter()
    writer.value(first)
    let written = writer.bytes
    let second: JSON
    do { second = try JSONParser.parse(written) } catch { preconditionFailure("written JSON does not parse: \(error)") }
    precondition(second == first, "the value changed through write and parse")
    var again = JSONWriter()
    again.value(second)
    precondition(again.bytes == written, "writing is not stable")
    return 0
}
