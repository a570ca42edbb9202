// The JSON parser on the worst bodies a client can send within the 1 MiB body limit
// (compiled together with Sources/JSON by bench/json.sh, so it runs optimized without a
// SwiftPM release build). For each shape: the body's size, then the median and the fastest
// of `runs` full parses (CPU time of the thread) (the value tree built and freed) and of `runs` validations
// (`JSONParser.validate`, what a request pays before its credential is read), in ms.
import Glibc

let limit = 1_048_576

/// Repeats `item` (with `separator` between) inside `open`/`close` while the body stays
/// within the limit.
func fill(_ open: String, _ item: (Int) -> String, _ separator: String, _ close: String) -> [UInt8] {
    var bytes = Array(open.utf8)
    let closing = Array(close.utf8)
    var k = 0
    while true {
        let next = Array(((k == 0 ? "" : separator) + item(k)).utf8)
        if bytes.count + next.count + closing.count > limit { break }
        bytes += next
        k += 1
    }
    return bytes + closing
}

func deep(_ levels: Int) -> String {
    String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
}

let shapes: [(String, [UInt8])] = [
    ("[1,1,...]", fill("[", { _ in "1" }, ",", "]")),
    ("[[],[],...]", fill("[", { _ in "[]" }, ",", "]")),
    ("[{},{},...]", fill("[", { _ in "{}" }, ",", "]")),
    ("[\"\",\"\",...]", fill("[", { _ in "\"\"" }, ",", "]")),
    ("{\"a\":1,\"b\":1,...} (distinct short keys)", fill("{", { "\"\(String($0, radix: 36))\":1" }, ",", "}")),
    ("{\"a\":1,\"a\":1,...} (one key repeated)", fill("{", { _ in "\"a\":1" }, ",", "}")),
    ("[{\"a\":1},...]", fill("[", { _ in "{\"a\":1}" }, ",", "]")),
    ("nesting to depth 64, repeated", fill("[", { _ in deep(63) }, ",", "]")),
    ("one string of \\u00e9 escapes", fill("[\"", { _ in "\\u00e9" }, "", "\"]")),
    ("one string of surrogate pairs", fill("[\"", { _ in "\\ud83d\\ude00" }, "", "\"]")),
    ("one string of \\n escapes", fill("[\"", { _ in "\\n" }, "", "\"]")),
    ("[\"\\u00e9\",...] (short escaped strings)", fill("[", { _ in "\"\\u00e9\"" }, ",", "]")),
    ("one plain ASCII string", fill("[\"", { _ in "abcdefgh" }, "", "\"]")),
    ("one string of 2-byte UTF-8", fill("[\"", { _ in "é" }, "", "\"]")),
    ("one number of 1M digits", fill("[1", { _ in "0" }, "", "]")),
    ("[100-digit numbers with fraction and exponent]", fill("[", { _ in String(repeating: "7", count: 60) + "." + String(repeating: "3", count: 30) + "e-123" }, ",", "]")),
    ("[-1.5e+10,...]", fill("[", { _ in "-1.5e+10" }, ",", "]")),
    ("[true,false,null,...]", fill("[", { ["true", "false", "null"][$0 % 3] }, ",", "]")),
]

func now() -> Double {
    var time = timespec()
    // The thread's own CPU time (page faults included): on a shared machine, wall time
    // would count the other programs' turns too.
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000
}

func measure(_ runs: Int, _ body: () -> Void) -> (median: Double, fastest: Double) {
    // One untimed run first: the allocator's first growth to this size is not the parser's.
    body()
    var times: [Double] = []
    for _ in 0..<runs {
        let start = now()
        body()
        times.append(now() - start)
    }
    times.sort()
    return (times[times.count / 2], times[0])
}

func text(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}

@main
struct JSONBench {
    static func main() {
        let runs = getenv("JSON_BENCH_RUNS").flatMap { Int(String(cString: $0)) } ?? 11
        let only = getenv("JSON_BENCH_ONLY").map { String(cString: $0) }
        print("| shape | bytes | parse ms (median, fastest) | validate ms (median, fastest) |")
        print("|---|---|---|---|")
        for (name, bytes) in shapes where only.map({ name.contains($0) }) ?? true {
            precondition(bytes.count <= limit)
            var parseError: JSONParseError?
            let parse = measure(runs) {
                do { _ = try JSONParser.parse(bytes) } catch let error as JSONParseError { parseError = error } catch {}
            }
            var validateError: JSONParseError?
            let validate = measure(runs) {
                do { try JSONParser.validate(bytes) } catch let error as JSONParseError { validateError = error } catch {}
            }
            precondition(parseError == validateError, "\(name): the parser and the validator disagree")
            // A shape past a limit (depth, containers) is refused: what the refusal costs is
            // what such a body costs the server, so it stays a row.
            let outcome = parseError.map { " (refused: \($0.reason))" } ?? ""
            print("| \(name)\(outcome) | \(bytes.count) | \(text(parse.median)), \(text(parse.fastest)) | \(text(validate.median)), \(text(validate.fastest)) |")
        }
    }
}
