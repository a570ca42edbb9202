/// What is wrong with an answer, found while reading it; the fetch names the server and
/// turns it into its `HTTPClientFailure` (`HTTPFetch.failure(for:)`, the one place).
struct AnswerProblem: Error, Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// Over a bound of `HTTPClientLimits`.
        case tooLarge
        /// Not HTTP/1.x, or framing it breaks.
        case malformed
        /// The stream ended before the answer did.
        case truncated
    }

    let kind: Kind
    /// What the server did, as a predicate: "sent a head over 1024 bytes".
    let words: String

    static func tooLarge(_ words: String) -> AnswerProblem { AnswerProblem(kind: .tooLarge, words: words) }
    static func malformed(_ words: String) -> AnswerProblem { AnswerProblem(kind: .malformed, words: words) }

    /// A line of the peer's as a log may show it: quoted, escaped, at most 80 bytes.
    static func quote<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        String(reflecting: String(decoding: bytes.prefix(80), as: UTF8.self))
    }
}
