/// APNs refuses a payload over 4 KB (`413 PayloadTooLarge`; a Web Push message is kept under
/// 3,000 bytes, `WebPushPayload.limit`), and a text rule bounds characters,
/// not bytes: a notification body of 1,000 characters may be many kilobytes of emoji. So the
/// texts of a visible notification or a Live Activity are shortened, by whole characters and
/// with an ellipsis, until the payload fits, rather than the person getting nothing.
enum PayloadFit {
    static let limit = 4096
    static let ellipsis = "…"

    /// Builds the payload with `texts`; while it is over `limit`, shortens the texts in the
    /// order given (the most expendable first), each only after the one before is used up.
    /// A text may appear more than once in a payload, so each keeps the longest start that
    /// fits, found by bisection (a handful of builds, and only for a payload too large).
    static func fit(_ texts: [String], limit: Int = PayloadFit.limit, build: ([String]) -> [UInt8]) -> [UInt8] {
        var texts = texts
        var payload = build(texts)
        var index = 0
        while payload.count > limit, index < texts.count {
            let characters = Array(texts[index])
            var low = 0
            var high = characters.count - 1
            var best: (text: String, payload: [UInt8])?
            while low <= high {
                let kept = (low + high) / 2
                var candidate = texts
                candidate[index] = kept == 0 ? "" : String(characters[..<kept]) + ellipsis
                let tried = build(candidate)
                if tried.count <= limit {
                    best = (candidate[index], tried)
                    low = kept + 1
                } else {
                    high = kept - 1
                }
            }
            if let best {
                texts[index] = best.text
                return best.payload
            }
            texts[index] = ""
            payload = build(texts)
            index += 1
        }
        return payload
    }
}
