// libFuzzer entry for the JSON parser (compiled together with Sources/JSON by build.sh).
// Properties checked on every input, besides "no crash, no hang, no leak of ASan's kind":
// - a document that parses, written back by JSONWriter, parses again to an equal value and
//   writes the same bytes (the writer's output is always valid JSON, and stable);
// - parsing through a buffer pointer and through an array agree.
@_cdecl("LLVMFuzzerTestOneInput")
public func jsonFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let first: JSON
    do { first = try JSONParser.parse(bytes) } catch { return 0 }
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
