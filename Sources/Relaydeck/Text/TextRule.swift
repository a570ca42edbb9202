/// One text field's rule (`overview.md#limits`): its length in characters as a person counts
/// them, a bound in bytes beside it, and how the text is normalized. The API's field reader
/// applies a rule once, under the caller's name for the field (REST `label`, an MCP argument),
/// and hands the domain the `CheckedText` it gives.
public struct TextRule: Sendable {
    /// Characters (grapheme clusters) allowed after normalization.
    public let characters: ClosedRange<Int>
    /// The most UTF-8 bytes the value may have as sent, before any normalization.
    public let bytes: Int
    /// Made one line: trimmed, each run of white space one space (`title`, `label`, ...).
    public let oneLine: Bool
    /// Only the white space at both ends is removed (a typed answer).
    public let trimmed: Bool

    public init(characters: ClosedRange<Int>, bytes: Int, oneLine: Bool = true, trimmed: Bool = false) {
        self.characters = characters
        self.bytes = bytes
        self.oneLine = oneLine
        self.trimmed = trimmed
    }

    /// Counting characters alone lets one "character" be huge: `e` followed by 500,000
    /// combining marks is one grapheme cluster, and 20,000 such characters are a description
    /// of megabytes that every list then carries. So each rule also has a byte bound, 4 bytes
    /// of UTF-8 a character (issue 26: a description at most 80 KB, a title 800 bytes).
    /// Measured on real prose (Swift's grapheme clusters): Latin, Greek, Cyrillic, Arabic,
    /// Hebrew, Chinese, Japanese and Korean take 1 to 3 bytes a character, so their texts
    /// fit whole; Hindi 3.9 to 4.2, Tamil 4.1, Thai 4.4, Bengali 4.6, Khmer and Burmese 4.9
    /// and Malayalam 5.2 fit up to about three quarters of the character bound, and emoji 4
    /// to 8 bytes each (`👍🏽` 8, a flag 8). A text near the whole character bound in those
    /// scripts meets the byte bound first, with a message that says so.
    public static let bytesPerCharacter = 4
    /// Unicode's stream-safe text format (UAX #15) allows 30 combining marks after a base;
    /// no real character needs more scalars than that, with room for joiners and selectors.
    public static let scalarsPerCharacter = 32

    /// The normalized text, or what is wrong with it (a message without the field's name).
    ///
    /// The byte bound comes first and applies to the text as sent: a native `String` knows
    /// its UTF-8 length without reading it, so 500,000 combining marks, or a title of 1 MB of
    /// spaces that would fold to "a", are refused before any scalar is looked at. Bounding
    /// the normalized text instead would let a huge raw value through the folding and the
    /// grapheme counting first; and nobody types more than six bytes of white space a
    /// character into a field. Every later step is linear in at most `bytes` bytes.
    public func check(_ raw: String) -> Result<CheckedText, TextProblem> {
        if raw.utf8.count > bytes {
            return .failure(.tooManyBytes(bytes))
        }
        if let printable = checkPrintableASCII(raw) {
            return printable
        }
        return checkScalars(raw)
    }

    /// `check` of a text within the byte bound, scalar by scalar: any text.
    func checkScalars(_ raw: String) -> Result<CheckedText, TextProblem> {
        if TextRules.hasControlCharacters(raw) {
            return .failure(.controlCharacters)
        }
        let text = oneLine ? TextRules.oneLine(raw) : trimmed ? TextRules.trimmed(raw) : raw
        // Counting stops one past the bound: a text that long is refused as too long.
        var count = 0
        for character in text {
            if character.unicodeScalars.count > Self.scalarsPerCharacter {
                return .failure(.characterTooLong)
            }
            count += 1
            if count > characters.upperBound { break }
        }
        guard characters.contains(count) else {
            return .failure(.length(characters))
        }
        if characters.lowerBound > 0 && TextRules.isInvisible(text) {
            return .failure(.invisible)
        }
        return .success(CheckedText(text))
    }
}

/// Text that passed a `TextRule`, normalized. The domain takes this, not a raw `String`, for
/// every field that has a rule, so a value cannot reach the store unchecked.
public struct CheckedText: Sendable, Equatable, CustomStringConvertible {
    public let value: String

    init(_ value: String) { self.value = value }

    public var description: String { value }
}

/// Why a text was refused. The message names no field: the caller adds its own name.
public enum TextProblem: Error, Sendable, Equatable {
    case tooManyBytes(Int)
    case controlCharacters
    case characterTooLong
    case length(ClosedRange<Int>)
    case invisible

    public var message: String {
        switch self {
        case .tooManyBytes(let bytes): "Must be at most \(TextRules.grouped(bytes)) bytes of UTF-8 as sent."
        case .controlCharacters: "Must not contain control characters."
        case .characterTooLong: "Must not contain a character of more than \(TextRule.scalarsPerCharacter) code points."
        case .length(let range): "Must be \(TextRules.grouped(range.lowerBound)) to \(TextRules.grouped(range.upperBound)) characters."
        case .invisible: "Must contain a visible character."
        }
    }
}

/// Each rule with its two bounds written out, as the README's table gives them
/// (`bytes` is `bytesPerCharacter` times the most characters; `TextRuleTests` checks that).
extension TextRule {
    /// Key `label` (`overview.md#limits`).
    public static let keyLabel = TextRule(characters: 1...40, bytes: 160)
    /// The name a person gives a passkey in the web console ("My laptop").
    public static let passkeyName = TextRule(characters: 1...40, bytes: 160)
    /// A Web Push subscription's name ("Firefox on the laptop"), issue 21.
    public static let webPushLabel = TextRule(characters: 1...64, bytes: 256)
    /// An OAuth client's name (RFC 7591 `client_name`), shown on the consent page and in the
    /// activity log (issue 24).
    public static let clientName = TextRule(characters: 1...100, bytes: 400)
    /// Question `prompt`.
    public static let questionPrompt = TextRule(characters: 1...300, bytes: 1_200)
    /// One question option.
    public static let questionOption = TextRule(characters: 1...30, bytes: 120)
    /// A typed answer: only the white space at its two ends goes.
    public static let typedAnswer = TextRule(characters: 1...1_000, bytes: 4_000, oneLine: false, trimmed: true)
    /// `notify_user` (`overview.md#limits`): a title of 1 to 100 characters, one line, and a
    /// body of 1 to 1,000.
    public static let notificationTitle = TextRule(characters: 1...100, bytes: 400)
    public static let notificationBody = TextRule(characters: 1...1_000, bytes: 4_000, oneLine: false, trimmed: true)
    /// Task `title`: one line (`overview.md#limits`).
    public static let taskTitle = TextRule(characters: 1...200, bytes: 800)
    /// Task `description`: Markdown, so its lines and spaces stay as sent.
    public static let taskDescription = TextRule(characters: 0...20_000, bytes: 80_000, oneLine: false)
    /// Task `status_note`: one line; empty is stored as `null` by the service.
    public static let statusNote = TextRule(characters: 0...140, bytes: 560)
    /// Message `text` (`inbox.md#inbox-item`): the space at its two ends goes, its lines stay.
    public static let messageText = TextRule(characters: 1...2_000, bytes: 8_000, oneLine: false, trimmed: true)
}
