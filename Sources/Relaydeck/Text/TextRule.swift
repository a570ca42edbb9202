/// One text field's rule (`overview.md#limits`): its length in characters as a person counts
/// them, a bound in bytes beside it, and how the text is normalized. The API's field reader
/// applies a rule once, under the caller's name for the field (REST `label`, an MCP argument),
/// and hands the domain the `CheckedText` it gives.
public struct TextRule: Sendable {
    /// Characters (grapheme clusters) allowed after normalization.
    public let characters: ClosedRange<Int>
    /// Made one line: trimmed, each run of white space one space (`title`, `label`, ...).
    public let oneLine: Bool
    /// Only the white space at both ends is removed (a typed answer).
    public let trimmed: Bool

    public init(characters: ClosedRange<Int>, oneLine: Bool = true, trimmed: Bool = false) {
        self.characters = characters
        self.oneLine = oneLine
        self.trimmed = trimmed
    }

    /// Counting characters alone lets one "character" be huge: `e` followed by 500,000
    /// combining marks is one grapheme cluster. Real text needs far less: the longest emoji
    /// sequences (a family with skin tones) are about 40 bytes, so 64 bytes a character on
    /// average always fits real text of the full length.
    public static let bytesPerCharacter = 64
    /// Unicode's stream-safe text format (UAX #15) allows 30 combining marks after a base;
    /// no real character needs more scalars than that, with room for joiners and selectors.
    public static let scalarsPerCharacter = 32

    /// The most UTF-8 bytes a value may have.
    public var maxBytes: Int { characters.upperBound * Self.bytesPerCharacter }

    /// The normalized text, or what is wrong with it (a message without the field's name).
    /// Every step is linear in the bytes, and the request body bounds those.
    public func check(_ raw: String) -> Result<CheckedText, TextProblem> {
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
        if text.utf8.count > maxBytes {
            return .failure(.tooManyBytes(maxBytes))
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
        case .tooManyBytes(let bytes): "Must be at most \(TextRules.grouped(bytes)) bytes."
        case .controlCharacters: "Must not contain control characters."
        case .characterTooLong: "Must not contain a character of more than \(TextRule.scalarsPerCharacter) code points."
        case .length(let range): "Must be \(TextRules.grouped(range.lowerBound)) to \(TextRules.grouped(range.upperBound)) characters."
        case .invisible: "Must contain a visible character."
        }
    }
}

extension TextRule {
    /// Key `label` (`overview.md#limits`).
    public static let keyLabel = TextRule(characters: 1...40)
    /// The name a person gives a passkey in the web console ("My laptop").
    public static let passkeyName = TextRule(characters: 1...40)
    /// Question `prompt`.
    public static let questionPrompt = TextRule(characters: 1...300)
    /// One question option.
    public static let questionOption = TextRule(characters: 1...30)
    /// A typed answer: only the white space at its two ends goes.
    public static let typedAnswer = TextRule(characters: 1...1_000, oneLine: false, trimmed: true)
    /// Task `title`: one line (`overview.md#limits`).
    /// `notify_user` (`overview.md#limits`): a title of 1 to 100 characters, one line, and a
    /// body of 1 to 1,000.
    public static let notificationTitle = TextRule(characters: 1...100)
    public static let notificationBody = TextRule(characters: 1...1_000, oneLine: false, trimmed: true)
    public static let taskTitle = TextRule(characters: 1...200)
    /// Task `description`: Markdown, so its lines and spaces stay as sent.
    public static let taskDescription = TextRule(characters: 0...20_000, oneLine: false)
    /// Task `status_note`: one line; empty is stored as `null` by the service.
    public static let statusNote = TextRule(characters: 0...140)
    /// Message `text` (`inbox.md#inbox-item`): the space at its two ends goes, its lines stay.
    public static let messageText = TextRule(characters: 1...2_000, oneLine: false, trimmed: true)
}
