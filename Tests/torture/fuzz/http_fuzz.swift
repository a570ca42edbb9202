// libFuzzer entry for the HTTP/1.1 request parser (compiled together with Sources/HTTP/Parser).
// The input is fed twice: in one piece, and split at points taken from its first byte. Both
// feeds must see the same sequence of events (heads, bodies, the error's status): where TCP
// splits a request never changes how it is read. `consumed` never exceeds what was given.
@_cdecl("LLVMFuzzerTestOneInput")
public func httpFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard !bytes.isEmpty else { return 0 }
    let step = Int(bytes[0] % 17) + 1
    let whole = events(Array(bytes.dropFirst()), pieces: [bytes.count - 1])
    var cuts: [Int] = []
    var left = bytes.count - 1
    while left > 0 { let n = min(step, left); cuts.append(n); left -= n }
    let split = events(Array(bytes.dropFirst()), pieces: cuts)
    precondition(whole == split, "split feeding changed the events: \(whole) vs \(split)")
    return 0
}

/// Feeds `input` in pieces of the given sizes; returns a text for each event until an error.
private func events(_ input: [UInt8], pieces: [Int]) -> [String] {
    var parser = HTTPRequestParser()
    var seen: [String] = []
    var pending: [UInt8] = []
    var offset = 0
    for piece in pieces {
        pending += input[offset..<offset + piece]
        offset += piece
        while true {
            let (event, consumed) = pending.withUnsafeBytes { parser.parse($0) }
            precondition(consumed >= 0 && consumed <= pending.count, "consumed \(consumed) of \(pending.count)")
            pending.removeFirst(consumed)
            switch event {
            case .needMore:
                break
            case .head(let head):
                seen.append("head \(head.method) \(head.target)")
                continue
            case .end(let body):
                seen.append("end \(body.count) \(body.hashValue)")
                continue
            case .error(let error):
                seen.append("error \(error.status)")
                return seen
            }
            break
        }
    }
    return seen
}
