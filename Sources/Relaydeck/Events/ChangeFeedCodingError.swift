import JSON

/// Why a change could not be written to the feed or read from it (`Change.feedBytes`,
/// `Change(feedBytes:)`). The message names the field, never its value: a feed row holds what
/// people wrote.
public struct ChangeFeedCodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// More bytes than `Change.feedMaxBytes`.
        case tooLarge(bytes: Int)
        /// Not one JSON text (cut short, not UTF-8, ...).
        case notJSON(JSONParseError)
        /// A form this binary does not know (`"v"`), or none.
        case unknownVersion
        /// A member written twice in one object: the writer never does, so the row is not its.
        case duplicateMember(String)
        /// A member that must be there is not.
        case missing(String)
        /// A member of another type than its field's, or a value its field cannot hold (an
        /// unknown status, a number out of range, a scope bit no scope has).
        case invalid(String)
        /// An event name this binary does not know.
        case unknownEvent
    }

    public let reason: Reason

    public init(_ reason: Reason) {
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .tooLarge(let bytes): "a change of \(bytes) bytes is more than the feed's \(Change.feedMaxBytes)"
        case .notJSON(let error): "a feed row is not JSON: \(error)"
        case .unknownVersion: "a feed row is of a form this binary does not know"
        case .duplicateMember(let name): "a feed row has \(name) twice"
        case .missing(let name): "a feed row has no \(name)"
        case .invalid(let name): "a feed row's \(name) is not valid"
        case .unknownEvent: "a feed row names an event this binary does not know"
        }
    }
}
